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
    ///   then the apps in the background by P8's order; active and inactive apps never), after the warning of the
    ///   same sample;
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

extension Scheduler {
    /// How early an app comes in the purge order (P8), lower first; nil for an app that is never purged (not
    /// running, terminating, active or inactive).
    enum PurgeRank: Int, Comparable {
        /// Suspended: it runs nothing, and a purge costs it only a relaunch.
        case suspended
        /// In the background with a budget and no work: no task and no uncompleted wake-up (it is about to be
        /// suspended, or has not returned from `didEnterBackground`).
        case backgroundIdle
        /// In the background with a budget, holding a task or an uncompleted wake-up (W4): work the user started.
        case backgroundWorking
        /// A background-mode app (L7): work the user sees or hears (audio, navigation), the last to go.
        case backgroundMode

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The app's place in the purge order (P8), or nil when it may not be purged.
    func purgeRank(_ index: Int) -> PurgeRank? {
        switch self.apps[index].lifecycle {
        case .suspended:
            return .suspended
        case .background(let period, let running):
            if period.deadline == nil { return .backgroundMode }
            return running.tasks.isEmpty && period.wakes.isEmpty ? .backgroundIdle : .backgroundWorking
        case .notRunning, .foreground, .terminating:
            return nil
        }
    }

    /// Purges the first app of the P8 order, if any may be purged; returns it. Within a rank the app longest in
    /// its state goes first; equal times keep registration order. O(apps).
    mutating func purgeOne() -> AppID? {
        var victim: (rank: PurgeRank, since: Instant, index: Int)?
        for index in self.apps.indices {
            guard let rank = self.purgeRank(index) else { continue }
            let candidate = (rank: rank, since: self.apps[index].stateSince, index: index)
            if let best = victim, (best.rank, best.since, best.index) <= (rank, candidate.since, index) { continue }
            victim = candidate
        }
        guard let victim else { return nil }
        self.beginTermination(victim.index, reason: .memoryPressure, graceful: false)
        return self.apps[victim.index].id
    }
}
