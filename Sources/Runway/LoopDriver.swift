import Logging
import RunwayCore
import RunwayProtocol

/// Runs the scheduler core on an `EventLoopThread`: feeds it events with the loop's clock reading and
/// performs its actions for embedded apps (SPEC A1, A2). Everything here runs on the loop thread.
///
/// Action lists are run in order; work they cause at once (an expiration handler that ends its task, a
/// message return) is queued and run after the list, and the wake-up is armed from the core's `nextWakeup`
/// once the queue is empty, so it is never set from a stale action.
///
/// Sendability: `@unchecked Sendable` is safe because every stored property is read and written only on the
/// loop thread: the driver is reached only through `EventLoopThread.execute` closures, the loop's wake-up
/// callback, or calls made from those (expiration handlers run on the loop thread). `assertOnLoop()` checks
/// it at each entry point.
final class LoopDriver: @unchecked Sendable {
    struct EmbeddedApp {
        var delegate: any RunwayAppDelegate
        var application: RunwayApplication
    }

    let loop: EventLoopThread
    let logger: Logger
    let metrics: RunwayMetrics
    let events: EventBroadcaster

    let processOptions: ProcessOptions
    private var core: Scheduler
    private var apps: [AppID: EmbeddedApp] = [:]
    /// Runs process apps; created when the first one registers.
    private var supervisor: ProcessSupervisor?
    /// Samples memory pressure (P3) when `processOptions.memoryPressure` is set.
    private var memoryMonitor: MemoryPressureMonitor?
    /// Expiration handlers by task; dropped when the task ends for any reason.
    private var handlers: [BackgroundTaskID: @Sendable () -> Void] = [:]
    private var pending: [[Action]] = []
    private var running = false
    private var armedWakeup: Instant?
    private var stopping = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    /// Called synchronously on the loop thread for every transition, in order.
    private var observers: [@Sendable (TransitionEvent) -> Void] = []
    /// Called synchronously on the loop thread for every message sent to an app, in order.
    private var messageObservers: [@Sendable (AppID, Message, Instant) -> Void] = []

    init(
        core: Scheduler,
        loop: EventLoopThread,
        logger: Logger,
        metrics: RunwayMetrics,
        events: EventBroadcaster,
        processOptions: ProcessOptions = ProcessOptions()
    ) {
        self.core = core
        self.processOptions = processOptions
        self.loop = loop
        self.logger = logger
        self.metrics = metrics
        self.events = events
    }

    private func assertOnLoop(_ function: StaticString = #function) {
        precondition(self.loop.inEventLoop, "LoopDriver.\(function) called off the loop thread of '\(self.loop.name)'")
    }

    private var now: Instant { self.loop.turnNow }

    // MARK: Events

    func register(_ descriptor: AppDescriptor, delegate: any RunwayAppDelegate, application: RunwayApplication) throws(SchedulerError) {
        self.assertOnLoop()
        guard !descriptor.isProcess else { throw SchedulerError(.unsupportedApp, app: descriptor.id) }
        guard !self.stopping else { throw SchedulerError(.stopping, app: descriptor.id) }
        try self.core.register(descriptor)
        self.apps[descriptor.id] = EmbeddedApp(delegate: delegate, application: application)
    }

    /// Registers a process app (`AppKind.process`); its child starts on `launch`.
    func register(process descriptor: AppDescriptor) throws(SchedulerError) {
        self.assertOnLoop()
        guard case .process(let spec) = descriptor.kind else { throw SchedulerError(.unsupportedApp, app: descriptor.id) }
        guard !self.stopping else { throw SchedulerError(.stopping, app: descriptor.id) }
        try self.core.register(descriptor)
        let supervisor = self.supervisor ?? {
            let made = ProcessSupervisor(
                loop: self.loop,
                options: self.processOptions,
                logger: self.logger
            )
            made.delegate = self
            self.supervisor = made
            return made
        }()
        supervisor.register(descriptor.id, spec: spec)
    }

    func processStatus() -> [AppID: ProcessStatus] {
        self.assertOnLoop()
        guard let supervisor = self.supervisor else { return [:] }
        var result: [AppID: ProcessStatus] = [:]
        for app in supervisor.apps.keys { result[app] = supervisor.status(of: app) }
        return result
    }

    func command(_ command: Command, for app: AppID) throws(SchedulerError) {
        self.assertOnLoop()
        let actions: [Action]
        do {
            actions = try self.core.commandReceived(command, for: app, now: self.now)
        } catch {
            self.logger.info("command refused", metadata: ["app": "\(app)", "command": "\(command)", "error": "\(error)"])
            throw error
        }
        self.run(actions)
    }

    func beginTask(name: String, app: AppID, handler: (@Sendable () -> Void)?) -> BackgroundTaskID {
        self.assertOnLoop()
        let grant = self.core.backgroundTaskRequested(name: name, by: app, now: self.now)
        if let refusal = grant.refusal {
            self.metrics.taskRefused(refusal)
            self.logger.info(
                "beginBackgroundTask returned invalid",
                metadata: ["app": "\(app)", "task.name": "\(name)", "reason": "\(refusal)"]
            )
        } else {
            self.metrics.taskBegun()
            if let handler { self.handlers[grant.id] = handler }
        }
        self.run(grant.actions)
        return grant.id
    }

    func endTask(_ id: BackgroundTaskID, app: AppID) throws(SchedulerError) {
        self.assertOnLoop()
        let actions: [Action]
        do {
            actions = try self.core.backgroundTaskEnded(id, by: app, now: self.now)
        } catch {
            self.logger.info("endBackgroundTask failed", metadata: ["app": "\(app)", "task": "\(id)", "error": "\(error)"])
            throw error
        }
        self.metrics.taskEnded()
        self.handlers[id] = nil
        self.run(actions)
    }

    func messageReturned(_ token: MessageToken, from app: AppID) {
        self.assertOnLoop()
        self.run(self.core.messageReturned(token, from: app, now: self.now))
    }

    func notificationPosted(name: String, payload: String, to app: AppID) throws(SchedulerError) {
        self.assertOnLoop()
        let (evicted, actions) = try self.core.notificationPosted(name: name, payload: payload, to: app, now: self.now)
        if let evicted {
            self.logger.info("notification queue full; oldest dropped", metadata: ["app": "\(app)", "dropped": "\(evicted)"])
        }
        self.run(actions)
    }

    /// Feeds the core one operator event (Scheduler+Overrides.swift) with this turn's instant and runs its
    /// actions.
    func override(_ event: (inout Scheduler, Instant) throws(SchedulerError) -> [Action]) throws(SchedulerError) {
        self.assertOnLoop()
        self.run(try event(&self.core, self.now))
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
        self.run(self.core.memoryWarningRaised(now: self.now))
    }

    func purge() -> AppID? {
        self.assertOnLoop()
        let (purged, actions) = self.core.purgeRequested(now: self.now)
        self.run(actions)
        return purged
    }

    func status() -> [AppStatus] {
        self.assertOnLoop()
        return self.core.status(now: self.loop.now())
    }

    func backgroundTimeRemaining(for app: AppID) -> TimeSpan {
        self.assertOnLoop()
        return self.core.backgroundTimeRemaining(for: app, now: self.loop.now())
    }

    func state(of app: AppID) -> AppState? {
        self.assertOnLoop()
        return self.core.state(of: app)
    }

    /// Starts sampling memory pressure if configured (P3). Called once, on the loop, after init.
    func startMemoryMonitor() {
        self.assertOnLoop()
        guard let options = self.processOptions.memoryPressure, self.memoryMonitor == nil else { return }
        let monitor = MemoryPressureMonitor(options: options, loop: self.loop.handles.loop, logger: self.logger)
        monitor.residentBytes = { [unowned self] in self.supervisor?.residentBytes() ?? 0 }
        monitor.onWarning = { [unowned self] in self.memoryWarning() }
        monitor.onCritical = { [unowned self] in self.purge() }
        monitor.start()
        self.memoryMonitor = monitor
    }

    /// P4: terminate every app; `waiter` is resumed when all are gone.
    func shutdown(_ waiter: CheckedContinuation<Void, Never>) {
        self.assertOnLoop()
        self.memoryMonitor?.stop()
        self.memoryMonitor = nil
        self.stopping = true
        self.stopWaiters.append(waiter)
        self.run(self.core.shutdownRequested(now: self.now))
    }

    /// The loop's wake-up fired at `now` (one clock reading for this batch).
    func wakeupFired(_ now: Instant) {
        self.assertOnLoop()
        if let armed = self.armedWakeup {
            self.metrics.wakeupLateness(now - armed)
        }
        self.armedWakeup = nil
        self.run(self.core.clockAdvanced(to: now))
    }

    /// Drops the apps and handlers, which refer back to this driver, so that a stopped scheduler can be
    /// freed. Called by `RunwayScheduler.shutdown()` after the loop thread has been joined: nothing runs on the
    /// loop any more, and the join orders the loop thread's last writes before this call.
    func releaseAfterLoopStopped() {
        precondition(!self.loop.inEventLoop, "releaseAfterLoopStopped() runs after the loop thread has exited")
        self.apps = [:]
        self.handlers = [:]
        self.observers = []
        self.messageObservers = []
        self.pending = []
        self.supervisor = nil
    }

    // Moves to the core with Action.setOOMScoreAdjust
    /// `oom_score_adj` per state of a process app (P3): active apps are the last the kernel kills, suspended
    /// ones the first; nil for `notRunning` (no child).
    private static func oomScoreAdjust(for state: AppState) -> Int? {
        switch state {
        case .active: return 0
        case .inactive: return 200
        case .background: return 500
        case .suspended: return 1000
        case .notRunning: return nil
        }
    }

    private func processSupervisor(for action: Action) -> ProcessSupervisor {
        guard let supervisor = self.supervisor else { preconditionFailure("Process action \(action) without a process app") }
        return supervisor
    }

    // MARK: Actions

    private func run(_ actions: [Action]) {
        self.pending.append(actions)
        guard !self.running else { return }
        self.running = true
        while !self.pending.isEmpty {
            for action in self.pending.removeFirst() {
                self.perform(action)
            }
        }
        self.running = false
        let next = self.core.nextWakeup
        if next != self.armedWakeup {
            self.armedWakeup = next
            self.loop.setWakeup(at: next)
        }
        if self.stopping && self.core.allAppsStopped && !self.stopWaiters.isEmpty {
            let waiters = self.stopWaiters
            self.stopWaiters = []
            let resume = { for waiter in waiters { waiter.resume() } }
            // P4: the stop completes once what the apps left behind is reaped too.
            if let supervisor = self.supervisor { supervisor.finish(then: resume) } else { resume() }
        }
    }

    private func perform(_ action: Action) {
        switch action {
        case .deliver(let app, .backgroundTaskWillExpire(let id), let token) where self.handlers[id] != nil:
            // A task begun in this process with a handler (an embedded app's, or one held on a process app's
            // behalf by an operator or a scenario): its handler runs here, on the loop thread; a process app is
            // not told about a task it did not begin.
            self.metrics.expirationHandlerCalled()
            self.handlers[id]?()
            self.run(self.core.messageReturned(token, from: app, now: self.now))
        case .deliver(let app, let message, let token) where self.apps[app] == nil:
            guard let supervisor = self.supervisor else { preconditionFailure("Delivered \(message) to unregistered app \(app)") }
            for observer in self.messageObservers { observer(app, message, self.now) }
            supervisor.deliver(message, token: token, to: app)
        case .deliver(let app, .backgroundTaskWillExpire(let id), let token):
            // Expiration handlers run on the loop thread, like UIKit's on the main thread; they must not block.
            self.metrics.expirationHandlerCalled()
            self.handlers[id]?()
            self.run(self.core.messageReturned(token, from: app, now: self.now))
        case .deliver(let app, let message, let token):
            guard let entry = self.apps[app] else { preconditionFailure("Delivered \(message) to unregistered app \(app)") }
            for observer in self.messageObservers { observer(app, message, self.now) }
            let loop = self.loop
            Task {
                await entry.delegate.deliver(message, to: entry.application)
                // Refused only when the loop is stopping: the app is being torn down anyway.
                _ = loop.execute { self.messageReturned(token, from: app) }
            }
        case .suspend(let app):
            if let embedded = self.apps[app] { embedded.application.executor.suspended() } else { self.supervisor?.suspend(app) }
        case .resume(let app):
            if let embedded = self.apps[app] { embedded.application.executor.resumed() } else { self.supervisor?.resume(app) }
        case .stop(let app):
            self.apps[app]?.application.executor.terminated()
        case .endTasks(_, let ids):
            for id in ids { self.handlers[id] = nil }
        case .publish(let event):
            if event.from == .notRunning { self.apps[event.app]?.application.executor.launched() }
            self.metrics.transition(event)
            self.logger.debug(
                "transition",
                metadata: [
                    "app": "\(event.app)", "from": "\(event.from)", "to": "\(event.to)", "cause": "\(event.cause)",
                    "messages": "\(event.messages.map(\.description))",
                ]
            )
            if self.apps[event.app] == nil, let value = Self.oomScoreAdjust(for: event.to) {
                self.supervisor?.setOOMScoreAdjust(value, for: event.app)
            }
            for observer in self.observers { observer(event) }
            self.events.yield(event)
        case .spawn(let app):
            self.processSupervisor(for: action).spawn(app)
        case .sendTerminateSignal(let app):
            self.processSupervisor(for: action).terminate(app)
        case .kill(let app):
            self.processSupervisor(for: action).kill(app)
        case .armWakeup, .cancelWakeup:
            // The wake-up is armed from `core.nextWakeup` once the whole queue has run.
            break
        }
    }
}

extension LoopDriver: ProcessSupervisorDelegate {
    func processExited(_ app: AppID, exit: ProcessExit) {
        self.run(self.core.processExited(app, exit: exit, now: self.now))
    }

    func processFailedToStart(_ app: AppID, error: String) {
        self.logger.info("process app failed to start", metadata: ["app": "\(app)", "error": "\(error)"])
        self.run(self.core.spawnFailed(app, error: error, now: self.now))
    }

    func processViolatedProtocol(_ app: AppID, reason: String) {
        self.run(self.core.protocolViolated(by: app, now: self.now))
    }

    func processAcknowledged(_ token: MessageToken, app: AppID) {
        self.run(self.core.messageReturned(token, from: app, now: self.now))
    }

    func processRequested(_ request: AppToRunway, app: AppID) -> RunwayToApp? {
        switch request {
        case .ack(let token):
            self.processAcknowledged(MessageToken(rawValue: token), app: app)
            return nil
        case .beginBackgroundTask(let request, let name):
            let id = self.beginTask(name: name, app: app, handler: nil)
            let refusal = id == .invalid ? "beginBackgroundTask refused for \(app)" : nil
            return .taskBegun(request: request, task: id.rawValue, refusal: refusal)
        case .endBackgroundTask(let request, let task):
            do {
                try self.endTask(BackgroundTaskID(rawValue: task), app: app)
                return .taskEnded(request: request)
            } catch {
                return .error(request: request, code: error.code.description, message: error.description)
            }
        case .backgroundTimeRemaining(let request):
            let remaining = self.backgroundTimeRemaining(for: app)
            return .timeRemaining(request: request, seconds: remaining == .max ? nil : remaining.seconds)
        }
    }
}
