// P3, the purge policy: the driver reports pressure samples; the scheduler classifies them with
// `settings.memoryPressure`, remembers the level, and decides the warnings and purges.

extension Scheduler {
    /// The level of the last readable memory pressure sample (P3); `.normal` before the first one.
    public var memoryPressureLevel: MemoryPressureLevel { self.pressureLevel }

    /// The driver read memory pressure at `now` (P3). Classifies the sample with `settings.memoryPressure` and
    /// acts on the change of level:
    /// - rising from `.normal` to `.warning` or `.critical`: every running app is sent
    ///   `didReceiveMemoryWarning` (as `memoryWarningRaised`), once; again only after a sample at `.normal`;
    /// - `.critical`: one app is purged per sample (as `purgeRequested`: suspended apps longest-suspended first,
    ///   then background-mode apps; active and inactive apps never), after the warning of the same sample;
    /// - `.unreadable`: nothing changes and no action is returned beyond a wake-up change.
    ///
    /// Loop thread only, like every event; `now` must not decrease between calls.
    ///
    /// - Returns: the purged app, or nil when none was (not critical, or nothing may be purged), and the
    ///   actions to run.
    public mutating func memoryPressureSampled(
        _ sample: MemoryPressureSample,
        now: Instant
    ) -> (purged: AppID?, actions: [Action]) {
        self.begin(now)
        guard let level = self.settings.memoryPressure.level(of: sample) else { return (nil, self.finish()) }
        let previous = self.pressureLevel
        self.pressureLevel = level
        if level >= .warning && previous == .normal {
            self.warnRunningApps()
        }
        let purged = level == .critical ? self.purgeOne() : nil
        return (purged, self.finish())
    }
}
