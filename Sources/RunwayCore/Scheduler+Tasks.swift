// Background tasks (B1, B2, B4, B5, B8).

extension Scheduler {
    /// `beginBackgroundTask(name:expirationHandler:)` (B1). The driver keeps the handler keyed by the id.
    ///
    /// Allowed in `active`, `inactive` and `background`. Returns `.invalid` with the reason for an unknown,
    /// suspended, not running or terminating app, after the current background period's budget ran out
    /// (`now` at or past its deadline), and for immediate-style exits-on-suspend apps (E1). Then the limits: a
    /// name longer than `taskNameByteLimit` bytes (`nameTooLong`), an app already holding `taskLimitPerApp`
    /// outstanding tasks (`tooManyTasks`); both name the limit, and neither changes anything. A task begun in
    /// the background after the expiration warning fired gets its `backgroundTaskWillExpire` at once (B4).
    /// Tasks begun in the foreground cost nothing until the app enters the background (B2).
    public mutating func backgroundTaskRequested(name: String, by app: AppID, now: Instant) -> TaskGrant {
        self.begin(now)
        guard let index = self.appIndex[app] else {
            return TaskGrant(id: .invalid, refusal: .unknownApp, actions: self.finish())
        }
        if let refusal = self.refusal(index, now: now) ?? self.nameRefusal(name) {
            return TaskGrant(id: .invalid, refusal: refusal, actions: self.finish())
        }
        let id = BackgroundTaskID(rawValue: self.nextTaskID)
        // One visit to the app's tasks: the per-app limit, the task, and B4 (after the warning, a new task's handler
        // is called at once).
        let warned = self.apps[index].lifecycle.period?.isWarned == true
        let limit = self.settings.taskLimitPerApp
        let accepted = self.apps[index].lifecycle.withRunning { running -> Bool in
            guard running.tasks.count < limit else { return false }
            running.tasks.began(id)
            if warned { running.outbox.append([.backgroundTaskWillExpire(id)]) }
            return true
        }
        guard accepted == true else {
            return TaskGrant(id: .invalid, refusal: .tooManyTasks(limit: limit), actions: self.finish())
        }
        self.nextTaskID += 1
        self.taskTable.insert(id, name: name, began: now, app: index)
        if warned { self.advance(index) }
        return TaskGrant(id: id, refusal: nil, actions: self.finish())
    }

    /// Why a task may not begin now, or nil. Reads the app in place (no copy of its record).
    func refusal(_ index: Int, now: Instant) -> TaskRefusal? {
        switch self.apps[index].lifecycle {
        case .terminating: return .terminating
        case _ where self.exitsImmediately(index): return .exitsOnSuspendImmediately
        case .notRunning: return .notRunning
        case .suspended: return .suspended
        case .foreground: return nil
        case .background(let period, _):
            // B1: not after the budget of this period ran out.
            return period.deadline.map { now >= $0 } == true ? .budgetExhausted : nil
        case .modifying: preconditionFailure("app=\(self.apps[index].id) is being modified")
        }
    }

    /// `nameTooLong` for a name over `taskNameByteLimit` bytes: every app may make the scheduler hold at most
    /// `taskLimitPerApp` names (checked with the task) of at most that many bytes.
    func nameRefusal(_ name: String) -> TaskRefusal? {
        name.utf8.count > self.settings.taskNameByteLimit ? .nameTooLong(limit: self.settings.taskNameByteLimit) : nil
    }

    /// `endBackgroundTask(_:)` (B8). Ending the last task in the background suspends the app at once
    /// (or terminates it, E1), unless it has background modes (B5, L7).
    ///
    /// - Throws: `unknownApp`; `unknownTask` for `.invalid` or an id never issued; `wrongApp` for a task
    ///   another app holds; `alreadyEnded` for an id issued and no longer outstanding. Nothing changes.
    ///   An ended task's owner is not remembered, so ending another app's already-ended task reports
    ///   `alreadyEnded`, not `wrongApp`.
    public mutating func backgroundTaskEnded(
        _ id: BackgroundTaskID,
        by app: AppID,
        now: Instant
    ) throws(SchedulerError) -> [Action] {
        self.begin(now)
        let index = try self.index(of: app)
        guard self.taskTable.owner(of: id) == index else {
            throw self.endError(id, app: app, state: self.apps[index].state)
        }
        self.taskTable.remove(id)
        if self.apps[index].lifecycle.withRunning({ $0.tasks.ended() }) == true {
            let table = self.taskTable
            self.apps[index].lifecycle.withRunning { $0.tasks.compact { table.owner(of: $0) == index } }
        }
        // A handler not yet called for an ended task is not called: `advance` skips its queued message.
        self.advance(index)
        return self.finish()
    }

    func endError(_ id: BackgroundTaskID, app: AppID, state: AppState) -> SchedulerError {
        if id == .invalid || id.rawValue >= self.nextTaskID {
            return SchedulerError(.unknownTask, app: app, state: state, task: id)
        }
        if let owner = self.taskTable.owner(of: id) {
            return SchedulerError(.wrongApp, app: app, state: state, task: id, owner: self.apps[owner].id)
        }
        return SchedulerError(.alreadyEnded, app: app, state: state, task: id)
    }

    /// Ends every outstanding task of a running app on the scheduler's behalf and tells the driver.
    mutating func endAllTasks(_ index: Int) {
        guard let running = self.apps[index].lifecycle.running, !running.tasks.isEmpty else { return }
        let ids = self.outstandingTasks(index)
        for id in ids { self.taskTable.remove(id) }
        self.apps[index].lifecycle.withRunning { $0.tasks.removeAll() }
        self.actions.append(.endTasks(self.apps[index].id, ids))
    }
}
