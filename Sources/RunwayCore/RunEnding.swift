/// How an app's run ended, as state restoration sees it (Behaviour.md section 10, R1-R7): whether the next launch
/// hands the app the state it preserved, and what `didFinishLaunching` then says about the run that preserved it.
/// The raw values are the app protocol's `restoration` strings (Docs/AppProtocol.md).
public enum RunEnding: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Purged under memory pressure (P3) or by `runway purge`.
    case purged
    /// Ended by an accepted device shutdown (P7).
    case shutdown
    /// Ended because the daemon stopped (P4): a stop or a restart of `runway run`.
    case daemonRestart
    /// The daemon was killed while the app ran: no ending was recorded, and the boot is the same.
    case daemonKilled
    /// The machine restarted while the app ran: no ending was recorded, and the boot id differs.
    case reboot
    /// The process exited or was killed by a signal on its own (L6), not soon after a restored launch.
    case crashed
    /// Terminated by the scheduler for its background time (B6, L3) or by exits-on-suspend (E1).
    case systemTerminated
    /// Ended by the operator's `terminate` (discards, R3).
    case terminated
    /// Killed from the switcher (S15; discards, R3).
    case switcherKill
    /// Crashed during or within `StateRestorationCrashWindow` of a restored launch (discards, R4).
    case crashedAfterRestore
    /// Terminated for breaking the app protocol (A5), or could not start (discards, R3).
    case failed

    /// True when a launch after a run that ended so hands the app its preserved state (R2); false when the state
    /// is discarded (R3, R4).
    public var restores: Bool {
        switch self {
        case .purged, .shutdown, .daemonRestart, .daemonKilled, .reboot, .crashed, .systemTerminated: return true
        case .terminated, .switcherKill, .crashedAfterRestore, .failed: return false
        }
    }

    /// The raw value.
    public var description: String { self.rawValue }
}
