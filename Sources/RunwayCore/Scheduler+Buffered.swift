// The hot events without an array per call: each writes its actions into a buffer the caller keeps.

extension Scheduler {
    // Each `[Action]`-returning event gives the caller a new array: one allocation per call that produces an
    // action (every expiration delivered, every message returned). These variants hand the actions over in `actions`
    // instead: its contents are replaced by this call's actions, and the scheduler keeps the buffer's old storage
    // (emptied, its capacity kept) for its next call, so a caller that passes the same buffer each time allocates
    // nothing once both have grown. Same rules, same actions, same order as the `[Action]`-returning form; a call
    // that throws leaves `actions` as it was.

    /// `backgroundTaskRequested(name:by:now:)` with the actions in `actions`; the grant's own `actions` is empty.
    ///
    /// - Note: Not thread-safe (the scheduler's one owner calls it); `now` must not decrease between calls.
    public mutating func backgroundTaskRequested(
        name: String,
        by app: AppID,
        now: Instant,
        into actions: inout [Action]
    ) -> TaskGrant {
        let (id, refusal) = self.requestTask(name: name, app: app, now: now)
        self.finish(into: &actions)
        return TaskGrant(id: id, refusal: refusal, actions: [])
    }

    /// `backgroundTaskEnded(_:by:now:)` with the actions in `actions`. Throws what it throws; then `actions` is
    /// unchanged.
    ///
    /// - Note: Not thread-safe (the scheduler's one owner calls it); `now` must not decrease between calls.
    public mutating func backgroundTaskEnded(
        _ id: BackgroundTaskID,
        by app: AppID,
        now: Instant,
        into actions: inout [Action]
    ) throws(SchedulerError) {
        try self.endTask(id, app: app, now: now)
        self.finish(into: &actions)
    }

    /// `messageReturned(_:from:now:)` with the actions in `actions`.
    ///
    /// - Note: Not thread-safe (the scheduler's one owner calls it); `now` must not decrease between calls.
    public mutating func messageReturned(
        _ token: MessageToken,
        from app: AppID,
        now: Instant,
        into actions: inout [Action]
    ) {
        self.returnMessage(token, from: app, now: now)
        self.finish(into: &actions)
    }

    /// `clockAdvanced(to:)` with the actions in `actions`.
    ///
    /// - Note: Not thread-safe (the scheduler's one owner calls it); `now` must not decrease between calls.
    public mutating func clockAdvanced(to now: Instant, into actions: inout [Action]) {
        self.advanceClock(to: now)
        self.finish(into: &actions)
    }
}
