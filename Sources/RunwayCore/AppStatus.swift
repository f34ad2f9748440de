/// A snapshot of one app for `runway status` (K2). Values are computed for the `now` passed in.
public struct AppStatus: Hashable, Sendable {
    /// One outstanding background task.
    public struct Task: Hashable, Sendable {
        /// The id `beginBackgroundTask` returned.
        public var id: BackgroundTaskID
        /// The name it was begun with (at most `TaskNameByteLimit` bytes).
        public var name: String
        /// How long ago it began, at the snapshot's `now`.
        public var age: TimeSpan
    }

    /// The app.
    public var app: AppID
    /// True for a process app (`AppKind.process`), false for an embedded one.
    public var isProcess: Bool
    /// Its lifecycle state.
    public var state: AppState
    /// The reason of the termination in progress (the `terminating` flag), or nil.
    public var terminating: TerminationReason?
    /// How long it has been in `state`, at the snapshot's `now`.
    public var timeInState: TimeSpan
    /// Outstanding tasks in the order they began: the first `taskLimit` of them (all by default).
    public var tasks: [Task]
    /// How many tasks are outstanding, whether or not `tasks` lists them all.
    public var taskCount: Int
    /// `backgroundTimeRemaining` (B3): `TimeSpan.max` when unlimited.
    public var budgetRemaining: TimeSpan
    /// The budget deadline of the current background period; nil outside one or for background modes.
    public var deadline: Instant?
    /// The message the app has not yet returned from, if any.
    public var messageInFlight: Message?
    /// Notifications held while suspended (N1).
    public var heldNotifications: Int
    /// How the last run ended, if the app ran before.
    public var lastTermination: TerminationReason?
    /// How the last run's process ended (process apps), if it ran before.
    public var lastExit: ProcessExit?
    /// KeepAlive: restarts so far, consecutive failures, crash-loop state and the pending restart.
    public var restart = RestartStatus()
    /// When the app's pending scheduled refresh is due (W7), or nil.
    public var nextRefresh: Instant?
    /// Background wake-ups given and not yet completed in the current background period (W4).
    public var outstandingWakes: Int
    /// The current run restored a state preserved by a run that ended so (R2); nil for a launch from nothing.
    public var restoredFrom: RunEnding?
    /// How the last run ended, as state restoration sees it (R2-R4), if the app ran before.
    public var lastRunEnding: RunEnding?
    /// True when a preserved state is stored for the app (R1).
    public var hasPreservedState = false
}

extension Scheduler {
    /// Snapshots one app, or nil if it is unknown. Does not change anything.
    ///
    /// - Parameters:
    ///   - app: The app to describe.
    ///   - now: The caller's current instant, for the time left in a budget and the time in the current state.
    ///   - taskLimit: The most tasks listed in `tasks` (the first ones begun); `taskCount` counts them all. An app
    ///     holds up to `TaskLimitPerApp` tasks whose names it chose, so a caller that shows a summary lists a few
    ///     and does not build the rest.
    public func status(of app: AppID, now: Instant, taskLimit: Int = .max) -> AppStatus? {
        guard let index = self.appIndex[app] else { return nil }
        let record = self.apps[index]
        var status = AppStatus(
            app: record.id,
            isProcess: record.descriptor.isProcess,
            state: record.state,
            terminating: record.lifecycle.termination?.reason,
            timeInState: now - record.stateSince,
            tasks: self.listedTasks(index, limit: taskLimit, now: now),
            taskCount: record.lifecycle.running?.tasks.count ?? 0,
            budgetRemaining: self.backgroundTimeRemaining(for: record.id, now: now),
            deadline: record.lifecycle.period?.deadline,
            messageInFlight: record.lifecycle.running?.outbox.inFlight?.message,
            heldNotifications: self.heldNotificationCount(record.lifecycle),
            lastTermination: record.lastTermination,
            lastExit: record.lastExit,
            nextRefresh: record.refresh?.due,
            outstandingWakes: record.lifecycle.period?.wakes.count ?? 0
        )
        status.restart = record.restart.status
        status.restoredFrom = record.restoration.restoredFrom
        status.lastRunEnding = record.restoration.lastEnding
        status.hasPreservedState = record.restoration.stored != nil
        return status
    }

    /// The app's first `limit` outstanding tasks in begin order. O(limit + tasks ended and not yet compacted out
    /// of the app's list): a summary of an app holding `TaskLimitPerApp` tasks does not visit them all.
    private func listedTasks(_ index: Int, limit: Int, now: Instant) -> [AppStatus.Task] {
        guard limit > 0, let tasks = self.apps[index].lifecycle.running?.tasks else { return [] }
        var listed: [AppStatus.Task] = []
        listed.reserveCapacity(min(limit, tasks.count))
        for id in tasks.ids {
            guard listed.count < limit else { break }
            guard let entry = self.taskTable.entry(id), Int(entry.app) == index else { continue }
            listed.append(AppStatus.Task(id: id, name: entry.name, age: now - entry.began))
        }
        return listed
    }

    /// Notifications held while suspended (N1).
    private func heldNotificationCount(_ lifecycle: Lifecycle) -> Int {
        if case .suspended(let held) = lifecycle { return held.count }
        return 0
    }

    /// Snapshots every app, in registration order, each with at most `taskLimit` tasks listed.
    public func status(now: Instant, taskLimit: Int = .max) -> [AppStatus] {
        self.apps.compactMap { self.status(of: $0.id, now: now, taskLimit: taskLimit) }
    }
}
