import RunwayCore

/// How often the supervisor reads `/proc` for processes (`ProcessSupervisor+Tracking.swift`): at most once per loop
/// turn for one app's tree, and for this process's own children when named apps are scanned, so that a batch of N
/// suspends, terminates or kills in one turn reads each once, not N times; and, for the light scan, a few times
/// after a signal-mode app's launch, resumption or line (`SettlingLooks`, from `descendantScanInterval`).
///
/// Pure: the caller passes the loop turn's clock reading (`turnNow`, constant during a turn) and does the reading;
/// this value only decides whether a look is made. Loop thread only.
struct ScanCadence: Hashable, Sendable {
    /// The loop turn of the last look; nil before the first and after `forget()`.
    private(set) var lastLook: Instant?

    init() {}

    /// A look is wanted at `now`; with `forced`, it is made whatever the last look was.
    ///
    /// - Returns: True when the look is made: `forced`, or the first look in this turn. `now` is recorded as the
    ///   last look either way.
    mutating func lookWanted(now: Instant, forced: Bool = false) -> Bool {
        defer { self.lastLook = now }
        return forced || self.lastLook != now
    }

    /// The next look is made whatever the turn (the app's process exited, or a new one was launched).
    mutating func forget() {
        self.lastLook = nil
    }

    /// The first settling look's delay: `interval` in whole milliseconds, at least 1.
    static func periodicIntervalMilliseconds(_ interval: TimeSpan) -> UInt64 {
        UInt64(max(1, interval.nanoseconds / 1_000_000))
    }

    /// Whether a running app needs the settling looks (`SettlingLooks`): one suspended by signals, whose processes
    /// may leave its tree. A freezer app's cgroup holds everything it starts, whatever the state file lists: a
    /// restarted daemon kills what the stale cgroups hold (`KilledCgroups`), so the file needs no look either.
    static func periodicScanNeeded(usesFreezer: Bool) -> Bool {
        !usesFreezer
    }
}
