/// Runs the scheduler core: feeds it events with the driver's instant and performs the actions it returns,
/// through one `AppHost` per kind of app. The real loop (`LoopDriver`) and the simulation (`SimulatedDriver`)
/// both run actions with this code, so what a test on a manual clock sees is what the loop does.
///
/// Order: the actions of one event run in order; events fed while they run (an expiration handler that ends
/// its task, a host's immediate return) are fed to the core at once and their actions queued behind the
/// current ones. The core has then moved on while the rest of the current list runs, so a host or observer that
/// reads the core in the middle of a list sees the newer state; the actions themselves still run in the order the
/// core produced them. The wake-up follows the `armWakeup`/`cancelWakeup` actions; `onWakeupChanged` is called once
/// the queue is empty, and only when it changed (or after `wakeupFired`, which tells the runner the driver's timer
/// is disarmed).
///
/// Expiration handlers: a task begun with a handler (`beginTask(name:app:handler:)`) has its
/// `backgroundTaskWillExpire` served here by calling the handler and returning the message at once; other
/// expiration messages go to the app's host like any message. A plain process's task has its handler called here
/// (`callExpirationHandler`), the process being told nothing.
///
/// - Note: Not thread-safe: one thread (the loop thread) owns it, its hosts and every closure it calls.
@_spi(Driver)
public final class ActionRunner {
    /// The scheduler the runner feeds; read it between events, change it only through the runner.
    public private(set) var core: Scheduler
    /// The wake-up the actions asked for (the core's earliest deadline once the queue is empty).
    public private(set) var wakeup: Instant?
    /// The host of embedded apps (`AppKind.embedded`).
    public var embeddedHost: (any AppHost)?
    /// The host of process apps (`AppKind.process`); may be set when the first process app registers.
    public var processHost: (any AppHost)?
    /// Called for every action before it is performed (simulation logs).
    public var onAction: (Action) -> Void = { _ in }
    /// Called for every transition, after the app's host.
    public var onTransition: (TransitionEvent) -> Void = { _ in }
    /// Called for every message handed to a host, with the instant.
    public var onMessage: (AppID, Message, Instant) -> Void = { _, _, _ in }
    /// Called each time an expiration handler held here runs.
    public var onHandlerCalled: () -> Void = {}
    /// Called when the queue is empty and the wake-up changed.
    public var onWakeupChanged: (Instant?) -> Void = { _ in }
    /// Called whenever the queue has been drained.
    public var onDrained: () -> Void = {}

    private let now: () -> Instant
    private var handlers: [BackgroundTaskID: (BackgroundTaskID) -> Void] = [:]
    /// Actions not yet performed, in order: one queue of actions (not of lists), so that queuing copies the
    /// actions in and allocates nothing once the queue has grown.
    private var pending = FIFO<Action>()
    /// The buffer the core's hot events write their actions into (`Scheduler+Buffered.swift`); copied into `pending`
    /// at once, so no array is allocated per event.
    private var buffer: [Action] = []
    private var running = false
    /// The process apps, for picking a host without reading the core for every action.
    private var processApps = Set<AppID>()
    private var announcedWakeup: Instant?

    /// A runner over `core`; set the hosts before the first event.
    ///
    /// - Parameters:
    ///   - core: the scheduler, usually with its apps not yet registered.
    ///   - now: the driver's clock reading for the current turn; read once per event.
    public init(core: Scheduler, now: @escaping () -> Instant) {
        self.core = core
        self.now = now
        self.processApps = Set(core.appIDs.filter { core.isProcess($0) })
    }

    // MARK: Events

    /// Registers an app in `notRunning` (`Scheduler.register`).
    public func register(_ descriptor: AppDescriptor) throws(SchedulerError) {
        try self.core.register(descriptor)
        if descriptor.isProcess { self.processApps.insert(descriptor.id) }
    }

    /// Feeds one event to the core with the current instant and runs its actions.
    public func run(_ event: (inout Scheduler, Instant) -> [Action]) {
        self.perform(event(&self.core, self.now()))
    }

    /// Feeds one event that returns a value beside its actions (a purge, a notification) and runs the actions.
    @discardableResult
    public func runReturning<Result>(_ event: (inout Scheduler, Instant) -> (Result, [Action])) -> Result {
        let (result, actions) = event(&self.core, self.now())
        self.perform(actions)
        return result
    }

    /// Feeds one event that may be refused; nothing runs when it throws.
    public func attemptReturning<Result>(
        _ event: (inout Scheduler, Instant) throws(SchedulerError) -> (Result, [Action])
    ) throws(SchedulerError) -> Result {
        let (result, actions) = try event(&self.core, self.now())
        self.perform(actions)
        return result
    }

    /// Feeds one event that may be refused and returns only actions.
    public func attempt(_ event: (inout Scheduler, Instant) throws(SchedulerError) -> [Action]) throws(SchedulerError) {
        let actions = try event(&self.core, self.now())
        self.perform(actions)
    }

    /// Feeds one event that may be refused; `beforeActions` runs once the core accepted it and before its actions
    /// run (a process app's answer is written before the suspension the event may cause).
    public func attemptBefore(
        _ event: (inout Scheduler, Instant) throws(SchedulerError) -> [Action],
        beforeActions: () -> Void
    ) throws(SchedulerError) {
        let actions = try event(&self.core, self.now())
        beforeActions()
        self.perform(actions)
    }

    /// The driver's wake-up fired (its one-shot timer is now disarmed) at `now`: fires the core's due deadlines.
    /// The wake-up is announced again after the queue drains even when the core's earliest deadline did not
    /// change, because a deadline re-armed at the instant that just fired (a zero grace) still needs a wake-up.
    public func wakeupFired(at now: Instant) {
        self.announcedWakeup = nil
        self.core.clockAdvanced(to: now, into: &self.buffer)
        self.performBuffer()
    }

    /// A message delivered to `app` returned (`Scheduler.messageReturned`), with the current instant.
    public func messageReturned(_ token: MessageToken, from app: AppID) {
        self.core.messageReturned(token, from: app, now: self.now(), into: &self.buffer)
        self.performBuffer()
    }

    /// `beginBackgroundTask` (B1); `handler`, if any, is kept until the task ends and is called on this thread
    /// for the task's `backgroundTaskWillExpire` (B4), with the task's id (also when it runs before this returns,
    /// for a task begun after the warning instant). The grant's actions have run when this returns; its `actions`
    /// is empty.
    public func beginTask(name: String, app: AppID, handler: ((BackgroundTaskID) -> Void)?) -> TaskGrant {
        let grant = self.core.backgroundTaskRequested(name: name, by: app, now: self.now(), into: &self.buffer)
        if grant.refusal == nil, let handler { self.handlers[grant.id] = handler }
        self.performBuffer()
        return grant
    }

    /// `endBackgroundTask` (B8); drops the task's handler. `beforeActions` runs once the core accepted the end and
    /// before its actions run (a process app's answer is written before the suspension it may cause).
    public func endTask(
        _ id: BackgroundTaskID,
        app: AppID,
        beforeActions: () -> Void = {}
    ) throws(SchedulerError) {
        try self.core.backgroundTaskEnded(id, by: app, now: self.now(), into: &self.buffer)
        self.handlers[id] = nil
        beforeActions()
        self.performBuffer()
    }

    /// Forgets the hosts, handlers and closures (which may refer back to the driver), so that a stopped driver
    /// can be freed.
    public func release() {
        self.embeddedHost = nil
        self.processHost = nil
        self.handlers = [:]
        self.pending = FIFO()
        self.buffer = []
        self.onAction = { _ in }
        self.onTransition = { _ in }
        self.onMessage = { _, _, _ in }
        self.onHandlerCalled = {}
        self.onWakeupChanged = { _ in }
        self.onDrained = {}
    }

    // MARK: Actions

    private func perform(_ actions: [Action]) {
        self.pending.append(contentsOf: actions)
        self.drain()
    }

    /// Queues the actions the core left in `buffer` and runs the queue.
    private func performBuffer() {
        if !self.buffer.isEmpty { self.pending.append(contentsOf: self.buffer) }
        self.drain()
    }

    /// Runs queued actions until none is left, unless a drain is already running further up the stack (then the
    /// new actions wait behind the current ones).
    private func drain() {
        guard !self.running else { return }
        self.running = true
        while let action = self.pending.popFirst() {
            self.perform(action)
        }
        self.running = false
        precondition(
            self.wakeup == self.core.nextWakeup,
            "Wake-up out of sync: actions=\(String(describing: self.wakeup)); "
                + "core=\(String(describing: self.core.nextWakeup))"
        )
        if self.wakeup != self.announcedWakeup {
            self.announcedWakeup = self.wakeup
            self.onWakeupChanged(self.wakeup)
        }
        self.onDrained()
    }

    /// True for a process app. O(1), without reading the core.
    public func isProcess(_ app: AppID) -> Bool {
        // Without process apps, no id to hash (the embedded-only scheduler).
        !self.processApps.isEmpty && self.processApps.contains(app)
    }

    private func host(for app: AppID) -> any AppHost {
        let isProcess = self.isProcess(app)
        guard let host = isProcess ? self.processHost : self.embeddedHost else {
            preconditionFailure("No host for \(app) (process: \(isProcess))")
        }
        return host
    }

    private func perform(_ action: Action) {
        self.onAction(action)
        switch action {
        case .deliver(let app, .backgroundTaskWillExpire(let id), let token)
        where !self.handlers.isEmpty && self.handlers[id] != nil:
            // B4: the handler of a task begun here runs on this thread, like UIKit's on the main thread; the
            // message returns when it does.
            self.onHandlerCalled()
            self.handlers[id]?(id)
            self.messageReturned(token, from: app)
        case .callExpirationHandler(_, let id):
            // B4 for a plain process: the handler, if the task has one; the process is told nothing (A4).
            if !self.handlers.isEmpty, let handler = self.handlers[id] {
                self.onHandlerCalled()
                handler(id)
            }
        case .deliver(let app, let message, let token):
            self.onMessage(app, message, self.now())
            self.host(for: app).deliver(message, token: token, to: app)
        case .spawn(let app):
            self.host(for: app).spawn(app)
        case .suspend(let app):
            self.host(for: app).suspend(app)
        case .resume(let app):
            self.host(for: app).resume(app)
        case .stop(let app):
            self.host(for: app).stop(app)
        case .sendTerminateSignal(let app):
            self.host(for: app).sendTerminateSignal(app)
        case .kill(let app):
            self.host(for: app).kill(app)
        case .setOOMScoreAdjust(let app, let value):
            self.host(for: app).setOOMScoreAdjust(value, for: app)
        case .endTasks(_, let ids):
            if !self.handlers.isEmpty { for id in ids { self.handlers[id] = nil } }
        case .armWakeup(let instant):
            self.wakeup = instant
        case .cancelWakeup:
            self.wakeup = nil
        case .publish(var event):
            if event.from == .notRunning, let ending = event.restoration,
                !self.host(for: event.app).restoringLaunch(event.app, from: ending)
            {
                // R1: a state that cannot be read is never restored; the launch, its event and status say so.
                self.core.restoredStateUnreadable(for: event.app)
                event.restoration = nil
            }
            self.host(for: event.app).transitioned(event)
            self.onTransition(event)
        }
    }
}
