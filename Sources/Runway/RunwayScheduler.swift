import Logging
import Metrics
@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayLocking
import RunwayLoop
@_spi(Processes) import RunwayProcesses
import ServiceLifecycle

/// The Runway scheduler on a real event loop: the core's decisions under real time, for apps embedded in
/// this process (Behaviour.md A1–A3).
///
/// It owns a libuv loop on a thread of its own. All scheduler state lives on that thread; every public
/// method may be called from any thread or task and hops to the loop (waiting microseconds for the answer).
/// Deadlines have nanosecond resolution: the loop wakes through a `timerfd`, never early, typically a few
/// microseconds late (see Docs/Performance.md); libuv's millisecond timers are not used for expiration.
/// `loopPriority` and `wakeupSpin` trade privilege and CPU for a shorter tail and median; both are off by default.
///
/// Lifecycle: the loop starts in `init`. Call `shutdown()` (or run the scheduler as a `Service` in a
/// `ServiceGroup`) to terminate every app and stop the loop; a scheduler that is never shut down keeps its
/// idle thread until the process exits.
///
/// Signals: the scheduler installs no signal handler. In a `ServiceGroup`, ServiceLifecycle owns SIGTERM and
/// SIGINT (`gracefulShutdownSignals`) and its graceful shutdown stops the scheduler: one owner per signal.
public final class RunwayScheduler: Sendable {
    package let bridge: LoopBridge
    let events: EventBroadcaster
    package let logger: Logger
    /// What the loop thread got for the `loopPriority` given to `init`: SCHED_FIFO, or why not.
    public let loopPriorityOutcome: LoopThreadPriorityOutcome
    /// Tasks waiting in `waitUntilStopped`, or nil once the scheduler has stopped.
    private let stopWaiters = RunwayLock<[CheckedContinuation<Void, Never>]?>([])

    /// Starts the loop thread. Process apps (the `Processes` SPI) get the default `ProcessOptions`.
    ///
    /// - Parameters:
    ///   - settings: Budgets, graces and policies (`Config/Runway.plist`, or built in code).
    ///   - logger: Where the scheduler logs (info and below; data in metadata).
    ///   - metricsFactory: Where metrics go; default the process's bootstrapped `MetricsSystem.factory`. The
    ///     counters of fixed words (each transition, termination and refusal reason) are made at zero here, so a
    ///     backend shows them before their first event (Docs/Operations.md lists them).
    ///   - name: The loop thread's name.
    ///   - loopPriority: The scheduling policy of the loop thread. `.realtime(priority:)` (SCHED_FIFO) bounds
    ///     how late a deadline is served on a busy machine; when the kernel refuses it the scheduler still
    ///     starts, logs a warning and reports it in `loopPriorityOutcome`.
    ///   - wakeupSpin: Arm the loop's timer this long before each deadline and spin on the clock for the rest
    ///     (0 to 1 ms; default 0, no spin). Deadlines are then served about that much less late (down to under a
    ///     microsecond when the thread wakes within the spin), for up to that much CPU per wake-up, during which
    ///     other loop work waits. Never early either way.
    /// - Throws: An error whose description says what failed (`EventLoopError`, package access) if libuv, the
    ///   timerfd or the thread cannot be created, if a real-time priority is outside
    ///   `LoopThreadPriority.realtimePriorities`, or `wakeupSpin` is outside 0 ... 1 ms.
    public convenience init(
        settings: SchedulerSettings = SchedulerSettings(),
        logger: Logger = Logger(label: "runway"),
        metricsFactory: (any MetricsFactory)? = nil,
        name: String = "runway",
        loopPriority: LoopThreadPriority = .inherited,
        wakeupSpin: TimeSpan = .zero
    ) throws {
        try self.init(
            settings: settings,
            processOptions: ProcessOptions(),
            logger: logger,
            metricsFactory: metricsFactory,
            name: name,
            loopPriority: loopPriority,
            wakeupSpin: wakeupSpin
        )
    }

    /// Starts the loop thread, with `processOptions` for process apps (used once one is registered); the other
    /// parameters are those of `init(settings:logger:metricsFactory:name:loopPriority:wakeupSpin:)`.
    /// `processOptions` has no default, so that a call without it names the public initializer alone.
    @_spi(Processes)
    public init(
        settings: SchedulerSettings = SchedulerSettings(),
        processOptions: ProcessOptions,
        logger: Logger = Logger(label: "runway"),
        metricsFactory: (any MetricsFactory)? = nil,
        name: String = "runway",
        loopPriority: LoopThreadPriority = .inherited,
        wakeupSpin: TimeSpan = .zero
    ) throws {
        let loop = try EventLoopThread(name: name, priority: loopPriority, wakeupSpin: wakeupSpin)
        let events = EventBroadcaster()
        let driver = LoopDriver(
            core: Scheduler(settings: settings),
            loop: loop,
            logger: logger,
            metrics: RunwayMetrics(factory: metricsFactory ?? MetricsSystem.factory),
            events: events,
            processOptions: processOptions
        )
        self.bridge = LoopBridge(loop: loop, driver: driver)
        self.events = events
        self.logger = logger
        // The driver arms wake-ups only from loop-thread work queued after this, so none can fire before.
        _ = loop.execute {
            loop.onWakeup = { now in driver.wakeupFired(now) }
            driver.startMemoryMonitor()
        }
        // The thread applied its priority before running any work, so this answer is final. Nothing asked, nothing
        // to ask the loop.
        let outcome =
            loopPriority == .inherited ? .inherited : self.bridge.sync { _ in loop.priorityOutcome } ?? .inherited
        self.loopPriorityOutcome = outcome
        switch outcome {
        case .inherited:
            break
        case .realtime:
            logger.info("loop thread priority", metadata: ["loop": "\(name)", "priority": "\(outcome)"])
        case .refused:
            logger.warning("loop thread priority refused", metadata: ["loop": "\(name)", "priority": "\(outcome)"])
        }
    }

    /// Registers an embedded app in `notRunning`.
    ///
    /// - Returns: the app's handle, also passed to every delegate call.
    /// - Throws: `duplicateApp`; `unsupportedApp` for a process app (`AppKind.process`); `stopping` after
    ///   shutdown.
    @discardableResult
    public func register(
        _ descriptor: AppDescriptor,
        delegate: some RunwayAppDelegate
    ) throws(SchedulerError) -> RunwayApplication {
        let application = RunwayApplication(id: descriptor.id, bridge: self.bridge)
        try self.bridge.syncThrowing(app: descriptor.id) { driver throws(SchedulerError) in
            try driver.register(descriptor, delegate: delegate, application: application)
        }
        return application
    }

    /// Performs a device-wide user event (S7, S8, S10): it reaches every app in the foreground (an opening event:
    /// lock, offerShutdown, alert) or the apps the matching opening event reached (unlock, cancelShutdown,
    /// acceptShutdown, alertIgnored, alertAnswered); `acceptShutdown` after an offer ends every running app (P7).
    /// The lock behaviour (`SchedulerSettings.lockBehavior`, or the app's) decides what a lock does to each app.
    ///
    /// - Returns: the apps the event reached; empty when none, or when the scheduler has stopped.
    @discardableResult
    public func perform(_ event: DeviceEvent) -> [AppID] {
        self.bridge.sync { $0.deviceEvent(event) } ?? []
    }

    /// Posts a host notification (N1); held and coalesced while the app is suspended.
    public func post(notification name: String, payload: String = "", to app: AppID) throws(SchedulerError) {
        try self.bridge.syncThrowing(app: app) { driver throws(SchedulerError) in
            try driver.notificationPosted(name: name, payload: payload, to: app)
        }
    }

    /// Sends `didReceiveMemoryWarning` to every running app (P3).
    public func memoryWarning() {
        _ = self.bridge.sync { $0.memoryWarning() }
    }

    /// Sends `didReceiveMemoryWarning` to one running app (P3; `runway memory-warning APP`), at most one pending.
    /// Blocks the calling thread until the loop has queued it (any thread; on the loop thread it runs inline).
    ///
    /// - Throws: `unknownApp`; `notRunning` when the app is not running, suspended or terminating; `stopping`.
    public func memoryWarning(for app: AppID) throws(SchedulerError) {
        try self.bridge.syncThrowing(app: app) { driver throws(SchedulerError) in
            try driver.override { core, now throws(SchedulerError) in
                try core.memoryWarningRaised(for: app, now: now)
            }
        }
    }

    /// Purges one app under memory pressure (P3), the first of P8's order: the longest-suspended, else an app in the
    /// background (never one in the foreground). Returns it, or nil.
    @discardableResult
    public func purge() -> AppID? {
        self.bridge.sync { $0.purge() } ?? nil
    }

    /// A snapshot of every app (K2), read with a fresh clock reading. Empty after shutdown.
    ///
    /// - Parameter taskLimit: The most tasks listed per app (`AppStatus.tasks`, the first begun); all by default.
    ///   `AppStatus.taskCount` counts them all. On the loop thread every task listed costs time, and an app may
    ///   hold `TaskLimitPerApp` of them: callers that do not need every task should ask for fewer.
    public func status(taskLimit: Int = .max) -> [AppStatus] {
        self.bridge.sync { $0.status(taskLimit: taskLimit) } ?? []
    }

    /// One page of `status`: the apps `query` selects, at most `query.limit` of them snapshotted (O(apps) compares
    /// plus O(limit) snapshots on the loop), and how many matched. An empty page after shutdown.
    package func statusPage(_ query: StatusQuery) -> StatusPage {
        self.bridge.sync { $0.runner.core.statusPage(query, now: $0.loop.now()) }
            ?? StatusPage(statuses: [], matched: 0, next: nil)
    }

    /// The apps registered after the first `count`, in registration order (apps are never removed): O(new apps),
    /// for a caller that keeps a row per app. Empty after shutdown.
    package func appIDs(after count: Int) -> [AppID] {
        self.bridge.sync { $0.runner.core.appIDs(after: count) } ?? []
    }

    /// The counts over every app the core keeps as they change (`SchedulerTally`): O(1) on the loop. Nil after
    /// shutdown.
    package func tally() -> SchedulerTally? {
        self.bridge.sync { $0.runner.core.tally }
    }

    /// The app's state, or nil for an unknown app or after shutdown. O(1).
    package func state(of app: AppID) -> AppState? {
        self.bridge.sync { $0.state(of: app) } ?? nil
    }

    /// A new subscription to the transition events (L8), from now on. Each subscriber buffers up to 4,096
    /// events and loses the oldest beyond that. The stream finishes when the scheduler shuts down.
    public func transitions() -> AsyncStream<TransitionEvent> {
        self.events.subscribe()
    }

    /// Calls `observer` for every transition from now on, synchronously on the scheduler's loop thread, in
    /// order, before the event reaches the `transitions()` streams. For measurements and bookkeeping that must
    /// not wake another thread per event (for example a lateness histogram): `observer` must be quick and must
    /// not block or call back into the scheduler synchronously from another thread.
    public func observeTransitions(_ observer: @escaping @Sendable (TransitionEvent) -> Void) {
        _ = self.bridge.sync { $0.addObserver(observer) }
    }

    /// Calls `observer` for every lifecycle message sent to an app (a delegate call started, or a protocol line
    /// written to a process app), synchronously on the loop thread, in order, with the instant it was sent.
    /// Expiration handlers run by the scheduler itself (tasks begun with a handler in this process) are not
    /// messages to the app and are not reported. Same rules as `observeTransitions`: quick, never blocking. For
    /// the daemon's timeline, hence `package`.
    package func observeMessages(_ observer: @escaping @Sendable (AppID, Message, Instant) -> Void) {
        _ = self.bridge.sync { $0.addMessageObserver(observer) }
    }

    /// Terminates every app by the `terminate` rows, in parallel, waits until all are gone (each bounded by
    /// its graces), then stops the loop (P4). Idempotent; later calls return at once.
    public func shutdown() async {
        await self.shutdown(lastOnLoop: nil)
    }

    /// `shutdown()`, running `last` on the loop thread once every app has stopped and before the loop closes what is
    /// still open: for a component with handles on this loop (the daemon's control socket server, its signal
    /// watcher) to close them itself, so that their close callbacks free what the handles hold.
    package func shutdown(lastOnLoop last: (@Sendable () -> Void)?) async {
        let driver = self.bridge.driver
        let loop = self.bridge.loop
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            if !loop.execute({ driver.shutdown(waiter) }) { waiter.resume() }
        }
        // Work sent before `loop.shutdown()` runs before the loop closes its handles.
        if let last { _ = loop.execute(last) }
        loop.shutdown()
        // The first caller to get here finishes the shutdown; concurrent callers return after the join.
        let waiters: [CheckedContinuation<Void, Never>]? = self.stopWaiters.withLock { waiters in
            defer { waiters = nil }
            return waiters
        }
        guard let waiters else { return }
        driver.releaseAfterLoopStopped()
        self.events.finish()
        self.logger.info("runway scheduler stopped")
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once `shutdown()` has completed (at once if it already has).
    public func waitUntilStopped() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let stopped = self.stopWaiters.withLock { waiters in
                guard waiters != nil else { return true }
                waiters?.append(waiter)
                return false
            }
            if stopped { waiter.resume() }
        }
    }
}

extension RunwayScheduler: Service {
    /// Runs until the service group shuts down gracefully (or the task is cancelled), then `shutdown()`:
    /// every app is terminated as in S9, with its graces, and the loop stops (A3, P4). Also returns when
    /// `shutdown()` is called directly.
    public func run() async throws {
        await withTaskCancellationOrGracefulShutdownHandler {
            await self.waitUntilStopped()
        } onCancelOrGracefulShutdown: {
            Task { await self.shutdown() }
        }
    }
}
