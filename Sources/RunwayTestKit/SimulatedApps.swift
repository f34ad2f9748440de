@_spi(Driver) import RunwayCore

/// The apps of a `SimulatedDriver`, as an `AppHost` for every kind of app: it acknowledges messages as
/// scripted, ends tasks in expiration handlers, plays processes that exit on SIGTERM or ignore it, and keeps the
/// log. It never calls the runner itself: what an app does in response is queued as an operation (`immediate`
/// for "at once", `script` for later) that the driver feeds once the runner's queue is empty, as a real loop
/// does on its next turn.
///
/// - Note: Not thread-safe; owned by one `SimulatedDriver`.
final class SimulatedApps: AppHost {
    var clock: ManualClock
    var log: [SimulatedDriver.Entry] = []
    var replies: [AppID: [String: SimulatedDriver.Reply]] = [:]
    var endsTaskOnExpiration: Set<AppID> = []
    var terminateBehavior: [AppID: SimulatedDriver.TerminateBehavior] = [:]
    var script: [(at: Instant, sequence: Int, operation: SimulatedDriver.Operation)] = []
    var immediate: [SimulatedDriver.Operation] = []
    var liveProcesses: Set<AppID> = []
    /// Shadow of each app's state, from published events, to check that no message reaches a suspended app.
    var shadowState: [AppID: AppState] = [:]
    var lastEvents: [AppID: TransitionEvent] = [:]
    /// Messages delivered and not yet returned, by token. Abandoned ones stay (a test-only driver).
    var delivered: [MessageToken: Message] = [:]
    /// Deadlines the core consumed, in firing order.
    var firedTimers: [FiredTimer] = []
    var recordsFiredTimers = false
    private var nextSequence = 0

    init(clock: ManualClock) {
        self.clock = clock
    }

    var now: Instant { self.clock.now }

    func record(_ what: SimulatedDriver.Entry.What) {
        self.log.append(SimulatedDriver.Entry(at: self.now, what: what))
    }

    func schedule(_ operation: SimulatedDriver.Operation, at instant: Instant) {
        precondition(instant >= self.now, "Cannot schedule in the past: now=\(self.now); at=\(instant)")
        self.script.append((instant, self.nextSequence, operation))
        self.nextSequence += 1
    }

    // MARK: AppHost

    func deliver(_ message: Message, token: MessageToken, to app: AppID) {
        precondition(
            self.shadowState[app] != .suspended,
            "Delivered \(message) to \(app), which is suspended; now=\(self.now)"
        )
        self.delivered[token] = message
        let name = String(message.description.prefix { $0 != "(" })
        switch self.replies[app]?[name] ?? .immediately {
        case .never:
            break
        case .after(let delay):
            self.schedule(.acknowledge(app, token), at: self.now + delay)
        case .immediately:
            self.immediate.append(.acknowledge(app, token))
        }
        // The handler runs when the message is delivered; a well-behaved handler ends its task.
        if case .backgroundTaskWillExpire(let id) = message, self.endsTaskOnExpiration.contains(app) {
            self.immediate.append(.endTask(id, app))
        }
    }

    func spawn(_ app: AppID) {
        self.liveProcesses.insert(app)
    }

    func suspend(_ app: AppID) {}

    func resume(_ app: AppID) {}

    func stop(_ app: AppID) {}

    func sendTerminateSignal(_ app: AppID) {
        switch self.terminateBehavior[app] ?? .exits(after: .zero) {
        case .ignores: break
        case .exits(let delay): self.schedule(.processExit(app, .exited(0)), at: self.now + delay)
        }
    }

    func kill(_ app: AppID) {
        // SIGKILL works at once, frozen or not (P2).
        self.schedule(.processExit(app, .signaled(9)), at: self.now)
    }

    func transitioned(_ event: TransitionEvent) {
        self.shadowState[event.app] = event.to
        self.lastEvents[event.app] = event
    }
}

/// A deadline the core reached in a simulation: fired, or found obsolete by the firing of another deadline of the
/// same batch.
public struct FiredTimer: Hashable, Sendable {
    public var app: AppID
    /// `expirationWarning`, `budgetDeadline`, `backgroundEntryGrace` or `termination`.
    public var kind: String
    public var deadline: Instant
    public var firedAt: Instant
}

@_spi(Driver)
extension Scheduler {
    /// `clockAdvanced(to:)` that also appends the deadlines it consumed to `firings`, in firing order. For tests
    /// of deadline instants on a bare scheduler.
    public mutating func clockAdvanced(to now: Instant, recordingInto firings: inout [FiredTimer]) -> [Action] {
        let due = self.armedTimers.prefix { $0.deadline <= now }
        firings += due.map { FiredTimer(app: $0.app, kind: $0.kind, deadline: $0.deadline, firedAt: now) }
        return self.clockAdvanced(to: now)
    }
}
