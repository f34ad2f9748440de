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
        let (id, refusal) = self.requestTask(name: name, app: app, now: now)
        return TaskGrant(id: id, refusal: refusal, actions: self.finish())
    }

    /// `backgroundTaskRequested(name:by:now:)` without the per-call work of its `TaskGrant`: the id and refusal are
    /// returned, and the actions are left for `finish()` or `finish(into:)`.
    mutating func requestTask(name: String, app: AppID, now: Instant) -> (BackgroundTaskID, TaskRefusal?) {
        self.begin(now)
        guard let index = self.lookup(app) else { return (.invalid, .unknownApp) }
        let id = BackgroundTaskID(rawValue: self.nextTaskID)
        // One visit to the app in place: the state's refusal, the name's, the per-app limit, the task, and B4
        // (after the warning, a new task's handler is called at once).
        let outcome = self.apps[index].lifecycle.beginTask(
            id,
            now: now,
            limit: self.settings.taskLimitPerApp,
            exitsImmediately: self.exitsImmediately(index),
            nameRefusal: self.nameRefusal(name)
        )
        let warned: Bool
        switch outcome {
        case .failure(let refusal): return (.invalid, refusal)
        case .success(let afterWarning): warned = afterWarning
        }
        self.nextTaskID += 1
        self.taskTable.insert(id, name: name, began: now, app: index)
        if warned { self.advance(index) }
        return (id, nil)
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
        try self.endTask(id, app: app, now: now)
        return self.finish()
    }

    /// `backgroundTaskEnded(_:by:now:)` with the actions left for `finish()` or `finish(into:)`.
    mutating func endTask(_ id: BackgroundTaskID, app: AppID, now: Instant) throws(SchedulerError) {
        self.begin(now)
        let index = try self.index(of: app)
        guard self.taskTable.owner(of: id) == index else {
            throw self.endError(id, app: app, state: self.apps[index].state)
        }
        self.taskTable.remove(id)
        // One visit in place: the app's list, and whether `advance` could do anything: with tasks left and no message
        // to send now it neither delivers nor suspends (B5), so it is skipped.
        let visit = self.apps[index].lifecycle.withRunning { running -> (compact: Bool, quiet: Bool) in
            let compact = running.tasks.ended()
            return (compact, !running.tasks.isEmpty && !running.outbox.mayDeliver)
        }
        if visit?.compact == true {
            let table = self.taskTable
            self.apps[index].lifecycle.withRunning { $0.tasks.compact { table.owner(of: $0) == index } }
        }
        // A handler not yet called for an ended task is not called: `advance` skips its queued message.
        if visit?.quiet != true { self.advance(index) }
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
    ///
    /// - Parameter appIsGone: The app leaves its running state right after (it becomes `notRunning`), which drops
    ///   its task list with the rest of its running data: the list is not emptied first, which would copy that data
    ///   whenever a caller still holds it.
    mutating func endAllTasks(_ index: Int, appIsGone: Bool = false) {
        guard self.apps[index].lifecycle.running?.tasks.isEmpty == false else { return }
        let ids = self.outstandingTasks(index)
        for id in ids { self.taskTable.remove(id) }
        if !appIsGone { self.apps[index].lifecycle.withRunning { $0.tasks.removeAll() } }
        self.actions.append(.endTasks(self.apps[index].id, ids))
    }
}
