// Scheduled refresh requests (Behaviour.md W7-W9), in the spirit of BGTaskScheduler: an app asks to be woken no
// earlier than an instant; the scheduler wakes it then with reason `refresh` through the wake-up path of
// Scheduler+Wake.swift. One pending request per app; a new one replaces it.

extension Scheduler {
    /// The app asks for a refresh no earlier than `earliestBegin` (W7). A pending request of the app is replaced
    /// (one per app, the limit). The refresh is due at `max(earliestBegin, now)`, and no earlier than
    /// `refreshMinimumInterval` after the app's previous refresh wake-up (W7): it fires at the first
    /// `clockAdvanced(to:)` that reaches that instant, never before (B9), and requests of several apps due at the
    /// same instant are served in the same call, in the order they were made (B10).
    ///
    /// The request outlives the app's run: when it is due the app is woken by the rules of W1 (launched into the
    /// background if it is not running, resumed if suspended; in the foreground it gets the message with no
    /// budget change). It is dropped, unserved, when it falls due while the app is terminating, during shutdown,
    /// or when the app has `backgroundWakeLimitPerApp` wake-ups outstanding (W8).
    ///
    /// - Throws: `unknownApp`; `notRunning` when the app is not running, suspended or terminating (only a running
    ///   app can ask). Nothing changes when it throws.
    public mutating func refreshRequested(
        by app: AppID,
        earliestBegin: Instant,
        now: Instant
    ) throws(SchedulerError) -> [Action] {
        self.begin(now)
        let index = try self.index(of: app)
        try self.requireRunning(index)
        if let old = self.apps[index].refresh { self.disarm([old.timer]) }
        var due = Swift.max(earliestBegin, now)
        if let last = self.apps[index].lastRefresh { due = Swift.max(due, last + self.settings.refreshMinimumInterval) }
        self.apps[index].refresh = RefreshRequest(due: due, timer: self.arm(.refresh, app: index, at: due))
        return self.finish()
    }

    /// The app withdraws its pending refresh request, if any (W7). Not an error when none is pending.
    ///
    /// - Throws: `unknownApp`; `notRunning` as for `refreshRequested`.
    public mutating func refreshCancelled(by app: AppID, now: Instant) throws(SchedulerError) -> [Action] {
        self.begin(now)
        let index = try self.index(of: app)
        try self.requireRunning(index)
        if let old = self.apps[index].refresh { self.disarm([old.timer]) }
        self.apps[index].refresh = nil
        return self.finish()
    }

    /// The app's pending refresh instant, or nil. O(1).
    public func nextRefresh(of app: AppID) -> Instant? {
        self.appIndex[app].flatMap { self.apps[$0].refresh?.due }
    }

    /// The refresh timer fired (W7, W8): wake the app with reason `refresh`, or drop the request when it cannot be.
    mutating func refreshDue(_ index: Int, handle: DeadlineHandle) {
        guard let request = self.apps[index].refresh, request.timer == handle else { return }
        self.apps[index].refresh = nil
        guard self.wakeRefusal(index, .refresh) == nil else { return }
        self.apps[index].lastRefresh = self.lastNow
        _ = self.wake(index, .refresh, payload: "")
    }

    /// `notRunning` unless the app is active, inactive or in the background and not terminating; the error's
    /// `wakeReason` is `refresh`, so that its text names what was refused.
    private func requireRunning(_ index: Int) throws(SchedulerError) {
        switch self.apps[index].lifecycle {
        case .foreground, .background: return
        case .notRunning, .suspended, .terminating:
            let record = self.apps[index]
            throw SchedulerError(
                .notRunning,
                app: record.id,
                state: record.state,
                terminating: record.lifecycle.isTerminating,
                wakeReason: .refresh
            )
        }
    }
}
