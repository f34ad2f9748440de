import RunwayCore

/// A driver for the scheduler core on a `ManualClock`: it runs every action the core returns, plays the
/// apps' side (acknowledging messages, ending tasks in their expiration handlers, processes that exit on
/// SIGTERM or ignore it) and records everything with its instant.
///
/// Time moves only through `advance(to:)`/`advance(by:)`, which stop at every wake-up the core asked for
/// and every scripted operation, in time order, so every firing happens exactly at its deadline. At equal
/// instants the core's deadlines fire first, then scripted operations in the order they were scheduled
/// (like a libuv loop turn: timers, then I/O).
///
/// - Note: Not thread-safe; one test owns it. The same script gives the same log every run.
public struct SimulatedDriver {
    /// How an app answers a message.
    public enum Reply: Hashable, Sendable {
        /// Returns at the same instant it was delivered.
        case immediately
        /// Returns this long after delivery.
        case after(TimeSpan)
        /// Never returns (a hung app).
        case never
    }

    /// How a process app reacts to SIGTERM.
    public enum TerminateBehavior: Hashable, Sendable {
        /// Exits with status 0 this long after SIGTERM.
        case exits(after: TimeSpan)
        /// Ignores SIGTERM; only SIGKILL ends it.
        case ignores
    }

    /// An operation scripted to happen at an instant.
    public enum Operation: Hashable, Sendable {
        case command(Command, AppID)
        case beginTask(String, AppID)
        case endTask(BackgroundTaskID, AppID)
        /// Ends the app's oldest outstanding task begun through this driver.
        case endOldestTask(AppID)
        case processExit(AppID, ProcessExit)
        case acknowledge(AppID, MessageToken)
        case post(name: String, payload: String, AppID)
        case memoryWarning
        case purge
        case shutdown
    }

    /// One line of the log: what happened at which instant.
    public struct Entry: Hashable, Sendable, CustomStringConvertible {
        public enum What: Hashable, Sendable {
            case action(Action)
            case refused(String)
            case taskBegan(AppID, BackgroundTaskID, String)
            case taskRefused(AppID, TaskRefusal)
            case taskEnded(AppID, BackgroundTaskID)
            case returned(AppID, Message)
        }

        public var at: Instant
        public var what: What

        public var description: String {
            switch self.what {
            case .action(let action): return "\(self.at) \(action)"
            case .refused(let error): return "\(self.at) refused: \(error)"
            case .taskBegan(let app, let id, let name): return "\(self.at) \(app) began \(id) \"\(name)\""
            case .taskRefused(let app, let refusal): return "\(self.at) \(app) task refused: \(refusal)"
            case .taskEnded(let app, let id): return "\(self.at) \(app) ended \(id)"
            case .returned(let app, let message): return "\(self.at) \(app) returned from \(message)"
            }
        }
    }

    public private(set) var scheduler: Scheduler
    public private(set) var clock: ManualClock
    public private(set) var log: [Entry] = []

    /// Per app and message name (`Message.description` up to the first parenthesis), how the app replies.
    /// Unlisted messages return immediately.
    public var replies: [AppID: [String: Reply]] = [:]
    /// Apps whose expiration handlers end their task (the well-behaved app of S11).
    public var endsTaskOnExpiration: Set<AppID> = []
    /// How each process app reacts to SIGTERM; default: exits at once.
    public var terminateBehavior: [AppID: TerminateBehavior] = [:]

    private var script: [(at: Instant, sequence: Int, operation: Operation)] = []
    private var nextSequence = 0
    private var wakeup: Instant?
    private var liveProcesses: Set<AppID> = []
    /// Shadow of each app's state, from published events, to check that no message reaches a suspended app.
    private var shadowState: [AppID: AppState] = [:]
    private var lastEvents: [AppID: TransitionEvent] = [:]
    /// Messages delivered and not yet returned, by token. Abandoned ones stay (a test-only driver).
    private var delivered: [MessageToken: Message] = [:]
    private var pendingActions: [[Action]] = []
    private var immediate: [Operation] = []
    private var running = false

    public init(scheduler: Scheduler, clock: ManualClock = ManualClock()) {
        self.scheduler = scheduler
        self.clock = clock
    }

    public var now: Instant { self.clock.now }

    // MARK: Immediate operations (at the current instant)

    /// Sends a command now. Refusals are thrown and logged.
    public mutating func send(_ command: Command, to app: AppID) throws(SchedulerError) {
        do {
            let actions = try self.scheduler.commandReceived(command, for: app, now: self.now)
            self.run(actions)
        } catch {
            self.log.append(Entry(at: self.now, what: .refused(error.description)))
            throw error
        }
    }

    /// Begins a background task now, as the app would.
    @discardableResult
    public mutating func beginTask(_ name: String, in app: AppID) -> BackgroundTaskID {
        let grant = self.scheduler.backgroundTaskRequested(name: name, by: app, now: self.now)
        if let refusal = grant.refusal {
            self.log.append(Entry(at: self.now, what: .taskRefused(app, refusal)))
        } else {
            self.log.append(Entry(at: self.now, what: .taskBegan(app, grant.id, name)))
        }
        self.run(grant.actions)
        return grant.id
    }

    /// Ends a background task now, as the app would.
    public mutating func endTask(_ id: BackgroundTaskID, in app: AppID) throws(SchedulerError) {
        do {
            let actions = try self.scheduler.backgroundTaskEnded(id, by: app, now: self.now)
            self.log.append(Entry(at: self.now, what: .taskEnded(app, id)))
            self.run(actions)
        } catch {
            self.log.append(Entry(at: self.now, what: .refused(error.description)))
            throw error
        }
    }

    /// Posts a notification now.
    public mutating func post(name: String, payload: String, to app: AppID) throws(SchedulerError) {
        let (_, actions) = try self.scheduler.notificationPosted(name: name, payload: payload, to: app, now: self.now)
        self.run(actions)
    }

    public mutating func memoryWarning() {
        self.run(self.scheduler.memoryWarningRaised(now: self.now))
    }

    @discardableResult
    public mutating func purge() -> AppID? {
        let (purged, actions) = self.scheduler.purgeRequested(now: self.now)
        self.run(actions)
        return purged
    }

    public mutating func shutdown() {
        self.run(self.scheduler.shutdownRequested(now: self.now))
    }

    /// A process exits on its own now (L6).
    public mutating func processExits(_ app: AppID, _ exit: ProcessExit) {
        self.liveProcesses.remove(app)
        self.run(self.scheduler.processExited(app, exit: exit, now: self.now))
    }

    public mutating func protocolViolation(by app: AppID) {
        self.run(self.scheduler.protocolViolated(by: app, now: self.now))
    }

    // MARK: Scripted operations and time

    /// Schedules an operation at an instant not before now.
    public mutating func schedule(_ operation: Operation, at instant: Instant) {
        precondition(instant >= self.now, "Cannot schedule in the past: now=\(self.now); at=\(instant)")
        self.script.append((instant, self.nextSequence, operation))
        self.nextSequence += 1
    }

    public mutating func schedule(_ operation: Operation, after span: TimeSpan) {
        self.schedule(operation, at: self.now + span)
    }

    /// Moves time forward to `target`, stopping at each wake-up and scripted operation on the way.
    public mutating func advance(to target: Instant) {
        while true {
            let nextOperation = self.script.min { ($0.at, $0.sequence) < ($1.at, $1.sequence) }
            let candidates = [self.wakeup, nextOperation?.at].compactMap { $0 }.filter { $0 <= target }
            guard let next = candidates.min() else { break }
            self.clock.advance(to: Swift.max(next, self.now))
            if let wakeup = self.wakeup, wakeup <= self.now {
                self.run(self.scheduler.clockAdvanced(to: self.now))
                continue
            }
            if let operation = nextOperation, operation.at <= self.now {
                self.script.removeAll { $0.sequence == operation.sequence }
                self.perform(operation.operation)
            }
        }
        self.clock.advance(to: Swift.max(target, self.now))
    }

    public mutating func advance(by span: TimeSpan) {
        self.advance(to: self.now + span)
    }

    /// Runs until nothing is scheduled and no wake-up is armed, or until `limit`.
    public mutating func runUntilIdle(limit: Instant = .distantFuture) {
        while let next = ([self.wakeup] + self.script.map { Optional($0.at) }).compactMap({ $0 }).min(), next <= limit {
            self.advance(to: next)
        }
    }

    private mutating func perform(_ operation: Operation) {
        switch operation {
        case .command(let command, let app):
            _ = try? self.send(command, to: app)
        case .beginTask(let name, let app):
            self.beginTask(name, in: app)
        case .endTask(let id, let app):
            _ = try? self.endTask(id, in: app)
        case .endOldestTask(let app):
            if let id = self.outstandingTasks(of: app).first { _ = try? self.endTask(id, in: app) }
        case .processExit(let app, let exit):
            guard self.liveProcesses.contains(app) else { return }
            self.processExits(app, exit)
        case .acknowledge(let app, let token):
            self.returnMessage(app, token)
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

    // MARK: Running actions

    /// Runs actions in order. Work they cause at once (an immediate reply, a handler ending its task) is
    /// queued and done after the whole list, as a real driver does on its next turn, so that a later action
    /// of the list (a wake-up change) is never applied after the newer state it would overwrite.
    private mutating func run(_ actions: [Action]) {
        self.pendingActions.append(actions)
        guard !self.running else { return }
        self.running = true
        defer { self.running = false }
        while !self.pendingActions.isEmpty || !self.immediate.isEmpty {
            if !self.pendingActions.isEmpty {
                self.runNow(self.pendingActions.removeFirst())
            } else {
                self.perform(self.immediate.removeFirst())
            }
        }
        precondition(
            self.wakeup == self.scheduler.nextWakeup,
            "Wake-up out of sync: driver=\(String(describing: self.wakeup)); core=\(String(describing: self.scheduler.nextWakeup))"
        )
    }

    private mutating func runNow(_ actions: [Action]) {
        for action in actions {
            self.log.append(Entry(at: self.now, what: .action(action)))
            switch action {
            case .deliver(let app, let message, let token):
                precondition(
                    self.shadowState[app] != .suspended,
                    "Delivered \(message) to \(app), which is suspended; now=\(self.now)"
                )
                self.deliver(message, to: app, token: token)
            case .spawn(let app):
                self.liveProcesses.insert(app)
            case .sendTerminateSignal(let app):
                switch self.terminateBehavior[app] ?? .exits(after: .zero) {
                case .ignores:
                    break
                case .exits(let delay):
                    self.schedule(.processExit(app, .exited(0)), after: delay)
                }
            case .kill(let app):
                // SIGKILL works at once, frozen or not (P2).
                self.schedule(.processExit(app, .signaled(9)), after: .zero)
            case .armWakeup(let instant):
                self.wakeup = instant
            case .cancelWakeup:
                self.wakeup = nil
            case .publish(let event):
                self.shadowState[event.app] = event.to
                self.lastEvents[event.app] = event
            case .suspend, .resume, .stop, .endTasks:
                break
            }
        }
    }

    private mutating func deliver(_ message: Message, to app: AppID, token: MessageToken) {
        self.delivered[token] = message
        let name = String(message.description.prefix { $0 != "(" })
        switch self.replies[app]?[name] ?? .immediately {
        case .never:
            break
        case .after(let delay):
            self.schedule(.acknowledge(app, token), after: delay)
        case .immediately:
            self.immediate.append(.acknowledge(app, token))
        }
        // The handler runs when the message is delivered; a well-behaved handler ends its task.
        if case .backgroundTaskWillExpire(let id) = message, self.endsTaskOnExpiration.contains(app) {
            self.immediate.append(.endTask(id, app))
        }
    }

    private mutating func returnMessage(_ app: AppID, _ token: MessageToken) {
        if let message = self.delivered.removeValue(forKey: token) {
            self.log.append(Entry(at: self.now, what: .returned(app, message)))
        }
        self.run(self.scheduler.messageReturned(token, from: app, now: self.now))
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
    public var actions: [(at: Instant, action: Action)] {
        self.log.compactMap {
            if case .action(let action) = $0.what { return ($0.at, action) }
            return nil
        }
    }

    /// The last transition published for `app`. O(1).
    public func lastEvent(of app: AppID) -> TransitionEvent? {
        self.lastEvents[app]
    }

    /// The app's outstanding tasks, in begin order (from the core's status).
    public func outstandingTasks(of app: AppID) -> [BackgroundTaskID] {
        self.scheduler.status(of: app, now: self.now)?.tasks.map(\.id) ?? []
    }

    /// Lets a test or the property checker mutate the core directly (for `recordsTimerFirings`).
    public mutating func withScheduler<R>(_ body: (inout Scheduler) -> R) -> R {
        body(&self.scheduler)
    }
}
