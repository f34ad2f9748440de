import Logging
@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayLoop
@_spi(Processes) import RunwayProcesses
import RunwayProtocol

/// Runs the scheduler core on an `EventLoopThread` through an `ActionRunner`: feeds it events with the loop's
/// clock reading, and lets the runner perform the actions through `EmbeddedAppHost` and the process
/// supervisor (Behaviour.md A1, A2, section 5). Everything here runs on the loop thread.
///
/// Sendability: `@unchecked Sendable` is safe because every stored property is read and written only on the
/// loop thread: the driver is reached only through `EventLoopThread.execute` closures, the loop's wake-up
/// callback, or calls made from those (expiration handlers run on the loop thread). `assertOnLoop()` checks
/// it at each entry point; `releaseAfterLoopStopped()` runs after the loop thread has been joined.
package final class LoopDriver: @unchecked Sendable {
    let loop: EventLoopThread
    let logger: Logger
    let metrics: RunwayMetrics
    let events: EventBroadcaster
    let processOptions: ProcessOptions

    let runner: ActionRunner
    private let embedded: EmbeddedAppHost
    /// Runs process apps; created when the first one registers.
    package var supervisor: ProcessSupervisor?
    /// Samples memory pressure (P3) when `processOptions.memoryPressure` is set.
    var memoryMonitor: MemoryPressureMonitor?
    /// State restoration's gathering and launches (StateRestoration.swift).
    let restoration = StateRestoration()
    private var armedWakeup: Instant?
    private var stopping = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    /// Called synchronously on the loop thread for every transition, in order.
    private var observers: [@Sendable (TransitionEvent) -> Void] = []
    /// Called synchronously on the loop thread for every message sent to an app, in order.
    private var messageObservers: [@Sendable (AppID, Message, Instant) -> Void] = []
    /// Called synchronously on the loop thread when the kernel confirms a process app's suspension or resumption
    /// (`LoopDriver+Confirmations.swift`).
    var confirmationObservers: [@Sendable (AppID, Bool, Instant) -> Void] = []

    init(
        core: Scheduler,
        loop: EventLoopThread,
        logger: Logger,
        metrics: RunwayMetrics,
        events: EventBroadcaster,
        processOptions: ProcessOptions = ProcessOptions()
    ) {
        self.processOptions = processOptions
        self.loop = loop
        self.logger = logger
        self.metrics = metrics
        self.events = events
        self.runner = ActionRunner(core: core, now: { loop.turnNow })
        self.embedded = EmbeddedAppHost(loop: loop)
        self.embedded.returned = { [unowned self] token, app in self.messageReturned(token, from: app) }
        self.runner.embeddedHost = self.embedded
        self.embedded.restoration = self.restoration
        self.runner.onTransition = { [unowned self] event in self.published(event) }
        self.runner.onMessage = { [unowned self] app, message, now in
            if case .backgroundTaskWillExpire = message {
                // B4: a process app's handler runs in its process when this reaches it; an embedded app's task
                // begun without a handler has nothing to call (not a message: EmbeddedAppHost returns it at once).
                self.metrics.expirationHandlerCalled()
                if !self.runner.isProcess(app) { return }
            }
            for observer in self.messageObservers { observer(app, message, now) }
        }
        self.runner.onHandlerCalled = { [unowned self] in self.metrics.expirationHandlerCalled() }
        self.runner.onWakeupChanged = { [unowned self] next in
            self.armedWakeup = next
            self.loop.setWakeup(at: next)
        }
        self.runner.onDrained = { [unowned self] in
            self.supervisor?.flushOOMScores()
            self.resumeStopWaitersIfDone()
        }
    }

    func assertOnLoop(_ function: StaticString = #function) {
        precondition(self.loop.inEventLoop, "LoopDriver.\(function) called off the loop thread of '\(self.loop.name)'")
    }

    var now: Instant { self.loop.turnNow }

    // MARK: Events

    func register(
        _ descriptor: AppDescriptor,
        delegate: any RunwayAppDelegate,
        application: RunwayApplication
    ) throws(SchedulerError) {
        self.assertOnLoop()
        guard !descriptor.isProcess else { throw SchedulerError(.unsupportedApp, app: descriptor.id) }
        guard !self.stopping else { throw SchedulerError(.stopping, app: descriptor.id) }
        try self.runner.register(descriptor)
        self.embedded.add(descriptor.id, delegate: delegate, application: application)
    }

    func command(_ command: Command, for app: AppID) throws(SchedulerError) {
        self.assertOnLoop()
        do {
            try self.runner.attempt { core, now throws(SchedulerError) in
                try core.commandReceived(command, for: app, now: now)
            }
        } catch {
            self.logger.info(
                "command refused",
                metadata: ["app": "\(app)", "command": "\(command)", "error": "\(error)"]
            )
            throw error
        }
    }

    func userAction(_ action: UserAction, for app: AppID) throws(SchedulerError) {
        self.assertOnLoop()
        do {
            try self.runner.attempt { core, now throws(SchedulerError) in
                try core.userActionReceived(action, for: app, now: now)
            }
        } catch {
            self.logger.info(
                "user action refused",
                metadata: ["app": "\(app)", "action": "\(action)", "error": "\(error)"]
            )
            throw error
        }
    }

    func deviceEvent(_ event: DeviceEvent) -> [AppID] {
        self.assertOnLoop()
        return self.runner.runReturning { $0.deviceEventReceived(event, now: $1) }
    }

    /// Begins a task (B1); the grant's refusal says why its id is `.invalid`. A refused name is logged cut to
    /// 256 bytes (it may be far over `TaskNameByteLimit`).
    package func beginTask(
        name: String,
        app: AppID,
        handler: (@Sendable (BackgroundTaskID) -> Void)?
    ) -> TaskGrant {
        self.assertOnLoop()
        let grant = self.runner.beginTask(name: name, app: app, handler: handler)
        if let refusal = grant.refusal {
            self.metrics.taskRefused(refusal)
            let shown = String(decoding: name.utf8.prefix(256), as: UTF8.self)
            self.logger.info(
                "beginBackgroundTask returned invalid",
                metadata: ["app": "\(app)", "task.name": "\(shown)", "reason": "\(refusal)"]
            )
        } else {
            self.metrics.taskBegun()
        }
        return grant
    }

    /// `endBackgroundTask`; `beforeActions` runs once the core accepted it and before its actions run. A refusal is
    /// thrown to the caller and logged: `alreadyEnded` at debug (the expected race of work that outlived its task,
    /// ended by its expiration handler, a suspension or a termination), the others at info.
    package func endTask(
        _ id: BackgroundTaskID,
        app: AppID,
        beforeActions: () -> Void = {}
    ) throws(SchedulerError) {
        self.assertOnLoop()
        do {
            try self.runner.endTask(id, app: app, beforeActions: beforeActions)
        } catch {
            self.logger.log(
                level: error.code == .alreadyEnded ? .debug : .info,
                "endBackgroundTask failed",
                metadata: ["app": "\(app)", "task": "\(id)", "error": "\(error)"]
            )
            throw error
        }
        self.metrics.taskEnded()
    }

    func messageReturned(_ token: MessageToken, from app: AppID) {
        self.assertOnLoop()
        self.embedded.messageHandled(token, from: app)
        self.runner.messageReturned(token, from: app)
    }

    func notificationPosted(name: String, payload: String, to app: AppID) throws(SchedulerError) {
        self.assertOnLoop()
        let evicted = try self.runner.attemptReturning { core, now throws(SchedulerError) in
            try core.notificationPosted(name: name, payload: payload, to: app, now: now)
        }
        if let evicted {
            self.logger.info(
                "notification queue full; oldest dropped",
                metadata: ["app": "\(app)", "dropped": "\(evicted)"]
            )
        }
    }

    /// Feeds the core one operator event (Scheduler+Overrides.swift) with this turn's instant and runs its
    /// actions.
    package func override(
        _ event: (inout Scheduler, Instant) throws(SchedulerError) -> [Action]
    ) throws(SchedulerError) {
        self.assertOnLoop()
        try self.runner.attempt(event)
    }

    func addObserver(_ observer: @escaping @Sendable (TransitionEvent) -> Void) {
        self.assertOnLoop()
        self.observers.append(observer)
    }

    func addMessageObserver(_ observer: @escaping @Sendable (AppID, Message, Instant) -> Void) {
        self.assertOnLoop()
        self.messageObservers.append(observer)
    }

    func memoryWarning() {
        self.assertOnLoop()
        self.runner.run { $0.memoryWarningRaised(now: $1) }
    }

    func purge() -> AppID? {
        self.assertOnLoop()
        return self.runner.runReturning { $0.purgeRequested(now: $1) }
    }

    func status(taskLimit: Int = .max) -> [AppStatus] {
        self.assertOnLoop()
        return self.runner.core.status(now: self.loop.now(), taskLimit: taskLimit)
    }

    func backgroundTimeRemaining(for app: AppID) -> TimeSpan {
        self.assertOnLoop()
        return self.runner.core.backgroundTimeRemaining(for: app, now: self.loop.now())
    }

    func state(of app: AppID) -> AppState? {
        self.assertOnLoop()
        return self.runner.core.state(of: app)
    }

    /// P4: terminate every app; `waiter` is resumed when all are gone.
    func shutdown(_ waiter: CheckedContinuation<Void, Never>) {
        self.assertOnLoop()
        self.memoryMonitor?.stop()
        self.memoryMonitor = nil
        self.stopping = true
        self.stopWaiters.append(waiter)
        self.runner.run { $0.shutdownRequested(now: $1) }
    }

    /// The loop's wake-up fired at `now` (one clock reading for this batch).
    func wakeupFired(_ now: Instant) {
        self.assertOnLoop()
        if let armed = self.armedWakeup {
            self.metrics.wakeupLateness(now - armed)
        }
        self.armedWakeup = nil
        self.runner.wakeupFired(at: now)
    }

    /// Drops the apps, handlers and observers, which refer back to this driver, so that a stopped scheduler can
    /// be freed. Called by `RunwayScheduler.shutdown()` after the loop thread has been joined: nothing runs on
    /// the loop any more, and the join orders the loop thread's last writes before this call.
    func releaseAfterLoopStopped() {
        precondition(!self.loop.inEventLoop, "releaseAfterLoopStopped() runs after the loop thread has exited")
        self.embedded.removeAll()
        self.runner.release()
        self.observers = []
        self.messageObservers = []
        self.confirmationObservers = []
        self.supervisor = nil
    }

    // MARK: Reporting

    private func published(_ event: TransitionEvent) {
        self.metrics.transition(event)
        self.logger.info(
            "transition",
            metadata: [
                "app": "\(event.app)", "from": "\(event.from)", "to": "\(event.to)", "cause": "\(event.cause)",
                "messages": .array(event.messages.map { .string($0.description) }),
            ]
        )
        for observer in self.observers { observer(event) }
        self.events.yield(event)
    }

    private func resumeStopWaitersIfDone() {
        guard self.stopping, self.appsStoppedOrUnkillable, !self.stopWaiters.isEmpty else { return }
        let waiters = self.stopWaiters
        self.stopWaiters = []
        let resume = { for waiter in waiters { waiter.resume() } }
        // P4: the stop completes once what the apps left behind is reaped too.
        if let supervisor = self.supervisor { supervisor.finish(then: resume) } else { resume() }
    }
}
