// State restoration (Behaviour.md section 10, R1-R7): which launch hands an app the state it preserved, and when a
// preserved state is discarded. Policy only: the driver stores, reads and removes the blobs, tells the core what is
// stored (`preservedStateFound`, `statePreserved`, `stateDiscarded`), and reads the decisions from the published
// transitions (`TransitionEvent.restoration`, `.runEnding`, `.preservedStateKept`).

/// What the scheduler knows of one app's preserved state. Mutated only by `Scheduler`.
struct RestorationRecord {
    /// Which run preserved the stored state, if one is stored.
    enum Stored: Hashable {
        /// The current run (it has not ended).
        case current
        /// A run that ended so.
        case ended(RunEnding)
    }

    /// Nil when no state is stored.
    var stored: Stored?
    /// The current run's launch handed over a state preserved by a run that ended so (R2).
    var restoredFrom: RunEnding?
    /// When the restored launch's `didFinishLaunching` returned; nil while it runs (R4's window).
    var launchReturned: Instant?
    /// How the last run ended, as restoration sees it.
    var lastEnding: RunEnding?
}

extension Scheduler {
    /// The driver found a stored state for the app when it started (R6). `recordedEnding` is how the run that
    /// preserved it ended, as recorded when it ended; nil when no ending was recorded (the daemon died while the run
    /// went on), which is `daemonKilled` when `sameBoot`, else `reboot`.
    ///
    /// - Returns: True when the state is kept for the next launch; false when the driver is to discard it (an ending
    ///   that does not restore, R3). Does not change the app's lifecycle; no actions.
    /// - Throws: `unknownApp`.
    public mutating func preservedStateFound(
        for app: AppID,
        recordedEnding: RunEnding?,
        sameBoot: Bool
    ) throws(SchedulerError) -> Bool {
        let index = try self.index(of: app)
        let ending = recordedEnding ?? (sameBoot ? .daemonKilled : .reboot)
        guard ending.restores else {
            self.apps[index].restoration.stored = nil
            return false
        }
        // A run going on keeps its own state; one found for an app not running is the last run's.
        self.apps[index].restoration.stored = self.apps[index].lifecycle.isNotRunning ? .ended(ending) : .current
        self.apps[index].restoration.lastEnding = self.apps[index].restoration.lastEnding ?? ending
        return true
    }

    /// The app handed over a complete state to store (R1): it replaces any stored one, and is the current run's.
    ///
    /// - Returns: False when the app is not running (its run ended before the state arrived) and its last run's
    ///   ending does not restore: the driver is to discard what it stored (R3). True otherwise.
    /// - Throws: `unknownApp`.
    public mutating func statePreserved(for app: AppID) throws(SchedulerError) -> Bool {
        let index = try self.index(of: app)
        guard self.apps[index].lifecycle.isNotRunning else {
            self.apps[index].restoration.stored = .current
            return true
        }
        guard let ending = self.apps[index].restoration.lastEnding, ending.restores else {
            self.apps[index].restoration.stored = nil
            return false
        }
        self.apps[index].restoration.stored = .ended(ending)
        return true
    }

    /// The app's stored state was removed (the app's `discardState`, `runway discard-state`, a version mismatch,
    /// R5, R7). Throws `unknownApp`.
    public mutating func stateDiscarded(for app: AppID) throws(SchedulerError) {
        let index = try self.index(of: app)
        self.apps[index].restoration.stored = nil
    }

    /// The state a launch was to restore could not be read (R1: a torn or changed file is never restored): the
    /// run restores nothing, no state is stored, and R4's window does not apply. No actions; an unknown app is
    /// ignored.
    @_spi(Driver)
    public mutating func restoredStateUnreadable(for app: AppID) {
        guard let index = self.appIndex[app] else { return }
        self.apps[index].restoration.stored = nil
        self.apps[index].restoration.restoredFrom = nil
        self.apps[index].restoration.launchReturned = nil
    }

    /// True when a state is stored for the app, as far as the scheduler was told.
    public func hasPreservedState(_ app: AppID) -> Bool {
        self.appIndex[app].map { self.apps[$0].restoration.stored != nil } ?? false
    }

    /// A run starts (R2): it restores when a state is stored by a run whose ending restores.
    mutating func restorationStarting(_ index: Int) {
        var record = self.apps[index].restoration
        record.launchReturned = nil
        if case .ended(let ending)? = record.stored, ending.restores {
            record.restoredFrom = ending
        } else {
            record.restoredFrom = nil
        }
        self.apps[index].restoration = record
    }

    /// `didFinishLaunching` returned: R4's window starts.
    mutating func restorationLaunchReturned(_ index: Int) {
        guard self.apps[index].restoration.restoredFrom != nil else { return }
        self.apps[index].restoration.launchReturned = self.lastNow
    }

    /// The run ended (R3, R4): how, as restoration sees it; a stored state is kept for the next launch when the
    /// ending restores, and dropped otherwise.
    ///
    /// - Returns: The ending, and whether a stored state was kept (true), dropped (false) or none was stored (nil).
    mutating func restorationRunEnded(
        _ index: Int,
        reason: TerminationReason,
        userAction: UserAction?
    ) -> (ending: RunEnding, kept: Bool?) {
        var record = self.apps[index].restoration
        let ending = self.runEnding(reason, userAction: userAction, record)
        record.lastEnding = ending
        record.restoredFrom = nil
        record.launchReturned = nil
        var kept: Bool?
        if record.stored != nil {
            kept = ending.restores
            record.stored = ending.restores ? .ended(ending) : nil
        }
        self.apps[index].restoration = record
        return (ending, kept)
    }

    /// R2-R4: a termination reason (and the user action that began it) as a run ending.
    private func runEnding(
        _ reason: TerminationReason,
        userAction: UserAction?,
        _ record: RestorationRecord
    )
        -> RunEnding
    {
        switch userAction {
        case .switcherKill?: return .switcherKill
        case .acceptShutdown?: return .shutdown
        default: break
        }
        switch reason {
        case .memoryPressure: return .purged
        case .shutdown: return .daemonRestart
        case .requested: return .terminated
        case .budgetOverrun, .backgroundEntryTimeout, .exitsOnSuspend: return .systemTerminated
        case .protocolViolation, .spawnFailed: return .failed
        case .exited(0): return .crashed
        case .exited, .signaled:
            // R4: during the restored launch, or within the window after it returned.
            guard record.restoredFrom != nil else { return .crashed }
            guard let returned = record.launchReturned else { return .crashedAfterRestore }
            return self.lastNow <= returned + self.settings.stateRestorationCrashWindow
                ? .crashedAfterRestore : .crashed
        }
    }
}
