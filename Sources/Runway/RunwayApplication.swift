@_spi(Driver) import RunwayCore
import RunwayLocking

/// One embedded app's handle: UIKit's `UIApplication` for that app. Returned by
/// `RunwayScheduler.register(_:delegate:)` and passed to every delegate method.
///
/// Threading: every member may be used from any thread or task. Calls other than `executor` hop to the
/// scheduler's loop thread and wait for it (microseconds); inside an expiration handler (which runs on the
/// loop thread) they run inline.
public final class RunwayApplication: Sendable {
    /// The app's bundle identifier.
    public let id: AppID
    /// Runs the app's work only while it may run: held while suspended, cancelled on termination (A2).
    public let executor: RunwayAppExecutor
    let loop: LoopBridge
    /// The state the current run's launch restored (R2), set on the loop thread before `didFinishLaunching`.
    let restored = RunwayLock<(state: [UInt8], lastRunEnded: RunEnding)?>(nil)

    init(id: AppID, bridge: LoopBridge) {
        self.id = id
        self.executor = RunwayAppExecutor()
        self.loop = bridge
    }

    /// Asks for extra execution time in the background (B1).
    ///
    /// The expiration handler is given the task's id, so that it can end its own task without capturing
    /// mutable state (UIKit's `var task` captured by the handler does not compile under Swift 6's strict
    /// concurrency):
    ///
    /// ```swift
    /// let task = application.beginBackgroundTask(withName: "send-outbox") { task in
    ///     try? application.endBackgroundTask(task)  // time ran out: stop and end it
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: A name shown by `runway status` and in logs.
    ///   - expirationHandler: Called once per background period with this task's id, on the scheduler's loop
    ///     thread, at `ExpirationWarningLead` before the budget deadline (B4). For a task begun after that
    ///     point it is called at once: before this method returns when no delegate method of the app is
    ///     running (called from the app's work), else when that method returns (L2). It must not block; it may
    ///     call `endBackgroundTask` with the id it is given, which works even when it runs before this method
    ///     has returned that id. Released when the task ends.
    /// - Returns: A new id, or `.invalid` when the app is suspended, not running, terminating, out of budget
    ///   for this background period, or an immediate-style exits-on-suspend app, when `name` is longer than
    ///   `TaskNameByteLimit` bytes or the app already holds `TaskLimitPerApp` tasks (the reason is logged).
    /// - Note: Tasks begun in the foreground cost nothing until the app enters the background (B2).
    public func beginBackgroundTask(
        withName name: String = "",
        expirationHandler: @escaping @Sendable (BackgroundTaskID) -> Void
    ) -> BackgroundTaskID {
        let id = self.id
        return self.loop.sync { $0.beginTask(name: name, app: id, handler: expirationHandler).id } ?? .invalid
    }

    /// Asks for extra execution time in the background (B1), with an expiration handler that is not given the
    /// task's id (or none). Same rules as `beginBackgroundTask(withName:expirationHandler:)` with an id-taking
    /// handler, which a handler that ends its own task should use.
    ///
    /// - Parameters:
    ///   - name: A name shown by `runway status` and in logs.
    ///   - expirationHandler: Called once per background period, on the scheduler's loop thread, at
    ///     `ExpirationWarningLead` before the budget deadline (B4), or at once for a task begun after that
    ///     point. It must not block. Released when the task ends.
    /// - Returns: A new id, or `.invalid` (the reason is logged).
    public func beginBackgroundTask(
        withName name: String = "",
        expirationHandler: (@Sendable () -> Void)? = nil
    ) -> BackgroundTaskID {
        let id = self.id
        let handler = expirationHandler.map { handler in { @Sendable (_: BackgroundTaskID) in handler() } }
        return self.loop.sync { $0.beginTask(name: name, app: id, handler: handler).id } ?? .invalid
    }

    /// Ends a background task (B8). Ending the last task in the background suspends the app at once (B5).
    ///
    /// Work that outlives its task (the expiration handler ended it, or the app was suspended or terminated
    /// meanwhile) gets `alreadyEnded`, which it may ignore (`try?`); the scheduler logs that refusal at debug
    /// level only, the others at info.
    ///
    /// - Throws: `unknownTask`, `alreadyEnded` or `wrongApp`; nothing changes. `stopping` after shutdown.
    public func endBackgroundTask(_ task: BackgroundTaskID) throws(SchedulerError) {
        let id = self.id
        try self.loop.syncThrowing(app: id) { driver throws(SchedulerError) in try driver.endTask(task, app: id) }
    }

    /// Time left in this background period (B3): `TimeSpan.max` in the foreground and for background-mode
    /// apps, zero when suspended or not running. Read at call time with a fresh clock reading.
    public var backgroundTimeRemaining: TimeSpan {
        let id = self.id
        return self.loop.sync { $0.backgroundTimeRemaining(for: id) } ?? .zero
    }

    /// The app's lifecycle state now.
    public var state: AppState {
        let id = self.id
        return self.loop.sync { $0.state(of: id) ?? .notRunning } ?? .notRunning
    }
}
