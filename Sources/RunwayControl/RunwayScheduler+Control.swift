import Runway
@_spi(Driver) import RunwayCore
import RunwayLoop

// What the daemon and its control socket need beyond the embedding API, at `package` access: background tasks
// held on an app's behalf (scenarios, operators), the operator overrides of a budget, the loop's clock for
// timelines, and the loop for edge components (control socket, signals) that run on the scheduler's own thread.
// Like the public methods, each may be called from any thread; all but `now()` hop to the loop thread and wait.

extension RunwayScheduler {
    /// The scheduler's loop thread, for edge components of this package that run on it (the control socket, the
    /// daemon's signal handles).
    package var loopThread: EventLoopThread { self.bridge.loop }

    /// Begins a background task on behalf of `app` (B1), for an operator or a scripted scenario; the app itself
    /// is not told. Embedded apps should call `RunwayApplication.beginBackgroundTask` instead.
    ///
    /// - Parameters:
    ///   - name: Shown by `runway status`.
    ///   - app: Any registered app, embedded or process.
    ///   - expirationHandler: Runs on the loop thread at the expiration warning (B4); must not block.
    /// - Returns: The task's id, or `.invalid` (the reason is logged) when the app may not begin one.
    package func beginBackgroundTask(
        withName name: String,
        for app: AppID,
        expirationHandler: (@Sendable () -> Void)? = nil
    ) -> BackgroundTaskID {
        let handler = expirationHandler.map { handler in { @Sendable (_: BackgroundTaskID) in handler() } }
        return self.bridge.sync { $0.beginTask(name: name, app: app, handler: handler).id } ?? .invalid
    }

    /// `beginBackgroundTask(withName:for:expirationHandler:)` that says why it refused: the task's id, or the
    /// refusal (which names the limit for `tooManyTasks` and `nameTooLong`); nil when the scheduler has stopped.
    /// On the loop thread it runs inline; from another thread it blocks until the loop thread answered.
    ///
    /// The task's expiration handler is the scheduler's own: at the warning (B4) it logs one info line,
    /// "expiration warning for a task held on the app's behalf", and the app is not told:
    /// the task is the daemon's, though it counts against the app's budget like the app's own.
    package func requestBackgroundTask(
        withName name: String,
        for app: AppID
    ) -> Result<BackgroundTaskID, TaskRefusal>? {
        let logger = self.logger
        let handler: @Sendable (BackgroundTaskID) -> Void = { task in
            logger.info(
                "expiration warning for a task held on the app's behalf",
                metadata: ["app": "\(app)", "task": "\(task)", "task.name": "\(name)"]
            )
        }
        return self.bridge.sync { driver in
            let grant = driver.beginTask(name: name, app: app, handler: handler)
            return grant.refusal.map { .failure($0) } ?? .success(grant.id)
        }
    }

    /// Ends a task begun with `beginBackgroundTask(withName:for:expirationHandler:)` (B8).
    ///
    /// - Throws: `unknownApp`, `unknownTask`, `alreadyEnded`, `wrongApp`; `stopping` after shutdown.
    package func endBackgroundTask(_ task: BackgroundTaskID, for app: AppID) throws(SchedulerError) {
        try self.bridge.syncThrowing(app: app) { driver throws(SchedulerError) in try driver.endTask(task, app: app) }
    }

    /// Operator override (`runway extend APP SECONDS`): moves the app's budget deadline `extra` later.
    ///
    /// - Parameter extra: Must be positive.
    /// - Throws: `unknownApp`; `noBudget` when the app is not in the background with a budget; `stopping`.
    package func extendBudget(of app: AppID, by extra: TimeSpan) throws(SchedulerError) {
        precondition(extra > .zero, "extendBudget needs a positive span, got \(extra)")
        try self.bridge.syncThrowing(app: app) { driver throws(SchedulerError) in
            try driver.override { core, now throws(SchedulerError) in
                try core.budgetExtended(by: extra, for: app, now: now)
            }
        }
    }

    /// Operator override (`runway expire APP`): the app's budget runs out now; handlers not yet called are
    /// called, then rule B6 applies at once (suspend with no task, else `OverrunPolicy`).
    ///
    /// - Throws: `unknownApp`; `noBudget` when the app is not in the background with a budget; `stopping`.
    package func expireBudget(of app: AppID) throws(SchedulerError) {
        try self.bridge.syncThrowing(app: app) { driver throws(SchedulerError) in
            try driver.override { core, now throws(SchedulerError) in
                try core.budgetExpiredByOperator(for: app, now: now)
            }
        }
    }

    /// The instant `now` of the scheduler's clock (nanoseconds since the loop started), for timelines. Reads the
    /// clock on the calling thread without hopping to the loop.
    package func now() -> Instant { self.bridge.loop.now() }
}

extension RunwayScheduler {
    /// Runs `body` on the loop thread (inline when already there) and returns its result; nil once the loop
    /// has stopped. For edge components that live on the loop (control socket, signals).
    package func runOnLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T? {
        self.bridge.sync { _ in body() }
    }
}
