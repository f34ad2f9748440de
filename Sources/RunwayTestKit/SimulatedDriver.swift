@_spi(Driver) import RunwayCore

/// A driver for the scheduler core on a `ManualClock`: the core's actions run through the same `ActionRunner`
/// as on the real loop, with `SimulatedApps` playing the apps (acknowledging messages, ending tasks in their
/// expiration handlers, processes that exit on SIGTERM or ignore it); everything is logged with its instant.
///
/// Time moves only through `advance(to:)`/`advance(by:)`, which stop at every wake-up the core asked for
/// and every scripted operation, in time order, so every firing happens exactly at its deadline. At equal
/// instants the core's deadlines fire first, then scripted operations in the order they were scheduled
/// (like a libuv loop turn: timers, then I/O). What an app does "at once" runs after the actions of the event
/// that caused it, as on a real loop's next turn.
///
/// - Note: Not thread-safe; one test owns it. Copies share one simulation. The same script gives the same log
///   every run.
public struct SimulatedDriver {
    private let runner: ActionRunner
    private let apps: SimulatedApps

    @_spi(Driver)
    public init(scheduler: Scheduler, clock: ManualClock = ManualClock()) {
        let apps = SimulatedApps(clock: clock)
        let runner = ActionRunner(core: scheduler, now: { apps.now })
        runner.embeddedHost = apps
        runner.processHost = apps
        runner.onAction = { apps.record(.action($0)) }
        self.apps = apps
        self.runner = runner
    }

    /// The core, as it is now (a copy).
    @_spi(Driver)
    public var scheduler: Scheduler { self.runner.core }
    public var clock: ManualClock { self.apps.clock }
    public var log: [Entry] { self.apps.log }
    public var now: Instant { self.apps.now }

    /// Per app and message name (`Message.description` up to the first parenthesis), how the app replies.
    /// Unlisted messages return immediately.
    public var replies: [AppID: [String: Reply]] {
        get { self.apps.replies }
        nonmutating set { self.apps.replies = newValue }
    }
    /// Apps whose expiration handlers end their task (the well-behaved app of S11).
    public var endsTaskOnExpiration: Set<AppID> {
        get { self.apps.endsTaskOnExpiration }
        nonmutating set { self.apps.endsTaskOnExpiration = newValue }
    }
    /// How each process app reacts to SIGTERM; default: exits at once.
    public var terminateBehavior: [AppID: TerminateBehavior] {
        get { self.apps.terminateBehavior }
        nonmutating set { self.apps.terminateBehavior = newValue }
    }
    /// When true, every deadline the core reaches is recorded in `firedTimers` (it costs a sort of the armed
    /// timers per wake-up, so it is off unless a test asks). Default false.
    public var recordsFiredTimers: Bool {
        get { self.apps.recordsFiredTimers }
        nonmutating set { self.apps.recordsFiredTimers = newValue }
    }
    /// Every deadline the core reached while `recordsFiredTimers` was on, in firing order, with its instant.
    public var firedTimers: [FiredTimer] { self.apps.firedTimers }

    // MARK: Immediate operations (at the current instant)

    /// Sends a command now. Refusals are thrown and logged.
    public mutating func send(_ command: Command, to app: AppID) throws(SchedulerError) {
        do {
            try self.runner.attempt { core, now throws(SchedulerError) in
                try core.commandReceived(command, for: app, now: now)
            }
        } catch {
            self.apps.record(.refused(error.description))
            throw error
        }
        self.settle()
    }

    /// Performs a user action of Behaviour.md section 4 now. Refusals are thrown and logged.
    public mutating func send(_ action: UserAction, to app: AppID) throws(SchedulerError) {
        do {
            try self.runner.attempt { core, now throws(SchedulerError) in
                try core.userActionReceived(action, for: app, now: now)
            }
        } catch {
            self.apps.record(.refused(error.description))
            throw error
        }
        self.settle()
    }

    /// Begins a background task now, as the app would.
    @discardableResult
    public mutating func beginTask(_ name: String, in app: AppID) -> BackgroundTaskID {
        let mark = self.apps.log.count
        let grant = self.runner.beginTask(name: name, app: app, handler: nil)
        let what: Entry.What = grant.refusal.map { .taskRefused(app, $0) } ?? .taskBegan(app, grant.id, name)
        self.apps.log.insert(Entry(at: self.now, what: what), at: mark)
        self.settle()
        return grant.id
    }

    /// Ends a background task now, as the app would.
    public mutating func endTask(_ id: BackgroundTaskID, in app: AppID) throws(SchedulerError) {
        let mark = self.apps.log.count
        do {
            try self.runner.endTask(id, app: app)
        } catch {
            self.apps.record(.refused(error.description))
            throw error
        }
        self.apps.log.insert(Entry(at: self.now, what: .taskEnded(app, id)), at: mark)
        self.settle()
    }

    /// Posts a notification now.
    public mutating func post(name: String, payload: String, to app: AppID) throws(SchedulerError) {
        _ = try self.runner.attemptReturning { core, now throws(SchedulerError) in
            try core.notificationPosted(name: name, payload: payload, to: app, now: now)
        }
        self.settle()
    }

    public mutating func memoryWarning() {
        self.runner.run { $0.memoryWarningRaised(now: $1) }
        self.settle()
    }

    @discardableResult
    public mutating func purge() -> AppID? {
        let purged = self.runner.runReturning { $0.purgeRequested(now: $1) }
        self.settle()
        return purged
    }

    public mutating func shutdown() {
        self.runner.run { $0.shutdownRequested(now: $1) }
        self.settle()
    }

    /// A process exits on its own now (L6).
    public mutating func processExits(_ app: AppID, _ exit: ProcessExit) {
        self.apps.liveProcesses.remove(app)
        self.runner.run { $0.processExited(app, exit: exit, now: $1) }
        self.settle()
    }

    public mutating func protocolViolation(by app: AppID) {
        self.runner.run { $0.protocolViolated(by: app, now: $1) }
        self.settle()
    }

    // MARK: Scripted operations and time

    /// Schedules an operation at an instant not before now.
    public mutating func schedule(_ operation: Operation, at instant: Instant) {
        self.apps.schedule(operation, at: instant)
    }

    public mutating func schedule(_ operation: Operation, after span: TimeSpan) {
        self.schedule(operation, at: self.now + span)
    }

    /// Moves time forward to `target`, stopping at each wake-up and scripted operation on the way.
    public mutating func advance(to target: Instant) {
        while true {
            let nextOperation = self.apps.script.min { ($0.at, $0.sequence) < ($1.at, $1.sequence) }
            let candidates = [self.runner.wakeup, nextOperation?.at].compactMap { $0 }.filter { $0 <= target }
            guard let next = candidates.min() else { break }
            self.apps.clock.advance(to: Swift.max(next, self.now))
            if let wakeup = self.runner.wakeup, wakeup <= self.now {
                let apps = self.apps
                if apps.recordsFiredTimers {
                    self.runner.run { core, now in core.clockAdvanced(to: now, recordingInto: &apps.firedTimers) }
                } else {
                    self.runner.run { core, now in core.clockAdvanced(to: now) }
                }
                self.settle()
                continue
            }
            if let operation = nextOperation, operation.at <= self.now {
                self.apps.script.removeAll { $0.sequence == operation.sequence }
                self.perform(operation.operation)
            }
        }
        self.apps.clock.advance(to: Swift.max(target, self.now))
    }

    public mutating func advance(by span: TimeSpan) {
        self.advance(to: self.now + span)
    }

    /// Runs until nothing is scheduled and no wake-up is armed, or until `limit`.
    public mutating func runUntilIdle(limit: Instant = .distantFuture) {
        while let next = ([self.runner.wakeup] + self.apps.script.map { Optional($0.at) }).compactMap({ $0 }).min(),
            next <= limit
        {
            self.advance(to: next)
        }
    }

    /// Feeds what the apps did "at once", one operation at a time, until none is left.
    private mutating func settle() {
        while !self.apps.immediate.isEmpty {
            self.perform(self.apps.immediate.removeFirst())
        }
    }

    private mutating func perform(_ operation: Operation) {
        switch operation {
        case .command(let command, let app):
            _ = try? self.send(command, to: app)
        case .userAction(let action, let app):
            _ = try? self.send(action, to: app)
        case .beginTask(let name, let app):
            self.beginTask(name, in: app)
        case .endTask(let id, let app):
            _ = try? self.endTask(id, in: app)
        case .endOldestTask(let app):
            if let id = self.outstandingTasks(of: app).first { _ = try? self.endTask(id, in: app) }
        case .processExit(let app, let exit):
            guard self.apps.liveProcesses.contains(app) else { return }
            self.processExits(app, exit)
        case .acknowledge(let app, let token):
            if let message = self.apps.delivered.removeValue(forKey: token) {
                self.apps.record(.returned(app, message))
            }
            self.runner.run { $0.messageReturned(token, from: app, now: $1) }
            self.settle()
        case .post(let name, let payload, let app):
            _ = try? self.post(name: name, payload: payload, to: app)
        case .memoryWarning:
            self.memoryWarning()
        case .purge:
            self.purge()
        case .shutdown:
            self.shutdown()
        }
    }

    // MARK: Reading the log

    /// Every transition published so far.
    public var events: [TransitionEvent] {
        self.log.compactMap {
            if case .action(.publish(let event)) = $0.what { return event }
            return nil
        }
    }

    /// The messages delivered to `app`, in order, with their instants.
    public func deliveries(to app: AppID) -> [(at: Instant, message: Message)] {
        self.log.compactMap {
            if case .action(.deliver(app, let message, _)) = $0.what { return ($0.at, message) }
            return nil
        }
    }

    /// The messages delivered to `app`, in order.
    public func messages(to app: AppID) -> [Message] {
        self.deliveries(to: app).map(\.message)
    }

    /// Every action with its instant, for exact ordering assertions.
    @_spi(Driver)
    public var actions: [(at: Instant, action: Action)] {
        self.log.compactMap {
            if case .action(let action) = $0.what { return ($0.at, action) }
            return nil
        }
    }

    /// The last transition published for `app`. O(1).
    public func lastEvent(of app: AppID) -> TransitionEvent? {
        self.apps.lastEvents[app]
    }

    /// The app's outstanding tasks, in begin order (from the core's status).
    public func outstandingTasks(of app: AppID) -> [BackgroundTaskID] {
        self.scheduler.status(of: app, now: self.now)?.tasks.map(\.id) ?? []
    }
}
