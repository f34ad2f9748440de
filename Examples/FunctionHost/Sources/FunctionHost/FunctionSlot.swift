import Foundation
@_spi(Processes) import Runway
@_spi(Processes) import RunwayCore

/// What a request found its function doing: the `Runway-Start` header.
enum StartKind: String, Sendable, Codable {
    /// Running: active, or in the background (not yet suspended), brought back to the foreground.
    case warm
    /// Suspended (frozen), resumed.
    case thawed
    /// Not running after a run whose state Runway kept (a purge, a budget kill): launched, the state restored (R2).
    case restored
    /// Not running and nothing to restore: launched from nothing.
    case cold
}

/// Why a function could not be brought to the foreground.
struct ForegroundFailure: Error, CustomStringConvertible {
    var description: String
}

/// One function's requests and idle timer. An actor: a request's way to the foreground, the count of requests in
/// flight and the idle timer are decided one at a time, so the idle timer never sends a function to the background
/// while a request is being proxied to it.
actor FunctionSlot {
    let name: String
    let app: AppID
    let socketPath: String
    let idleSeconds: Double
    private let scheduler: RunwayScheduler
    private let waiters: StateWaiters

    /// The longest a request waits for its function to become active (a launch, a resume, a termination in
    /// progress to end first).
    static let foregroundTimeout: Duration = .seconds(30)
    /// How many times a request retries a command refused because the state moved meanwhile (L1).
    static let attemptLimit = 5

    private var inFlight = 0
    /// Bumped by every request's start and end: an idle timer armed before the bump is stale.
    private var generation: UInt64 = 0
    private var idleTimer: Task<Void, Never>?
    /// A foreground in progress: the requests that arrive meanwhile wait for it and report what it found.
    private var pending: Task<StartKind, any Error>?
    /// What the last request found.
    private(set) var lastStart: StartKind?

    init(
        name: String,
        app: AppID,
        socketPath: String,
        idleSeconds: Double,
        scheduler: RunwayScheduler,
        waiters: StateWaiters
    ) {
        self.name = name
        self.app = app
        self.socketPath = socketPath
        self.idleSeconds = idleSeconds
        self.scheduler = scheduler
        self.waiters = waiters
    }

    /// Starts a request: counts it in flight (cancelling the idle timer) and brings the function to the foreground.
    /// Every call must be followed by one `requestEnded()`, whether this throws or not.
    ///
    /// - Returns: What the request found.
    func requestStarted() async throws -> StartKind {
        self.inFlight += 1
        self.generation &+= 1
        self.idleTimer?.cancel()
        self.idleTimer = nil
        if let pending = self.pending { return try await pending.value }
        let task = Task { try await self.foreground() }
        self.pending = task
        defer { self.pending = nil }
        let kind = try await task.value
        self.lastStart = kind
        return kind
    }

    /// Ends a request; with none left in flight, arms the idle timer.
    func requestEnded() {
        self.inFlight -= 1
        self.generation &+= 1
        guard self.inFlight == 0 else { return }
        let generation = self.generation
        let seconds = self.idleSeconds
        self.idleTimer = Task {
            guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return }
            self.idleTimerFired(generation)
        }
    }

    /// Idle for `idleSeconds`: sends the function to the background (Home, S2). Runway suspends it when its tasks
    /// end (B5) or at its budget's deadline (B6), or ends it (E1).
    private func idleTimerFired(_ generation: UInt64) {
        guard generation == self.generation, self.inFlight == 0 else { return }
        self.idleTimer = nil
        guard let status = self.status(), status.terminating == nil, status.state == .active else { return }
        do {
            try self.scheduler.perform(.home, on: self.app)
        } catch {
            // The state moved meanwhile (an exit, a kill): nothing to send to the background.
        }
    }

    private func status() -> AppStatus? {
        self.scheduler.status(taskLimit: 0).first { $0.app == self.app }
    }

    /// Brings the function to `active`: launch when not running, summon when in the background or suspended; waits
    /// for a termination in progress (E1, a kill) to end first.
    private func foreground() async throws -> StartKind {
        for _ in 0..<Self.attemptLimit {
            guard let status = self.status() else { throw ForegroundFailure(description: "the host is stopping") }
            if status.terminating != nil {
                try await self.wait(for: [.notRunning])
                continue
            }
            do {
                let found: StartKind
                switch status.state {
                case .active:
                    return .warm
                case .inactive:
                    // Launching (L9) or interrupted: it becomes active when didFinishLaunching returns.
                    found = .warm
                case .background:
                    try self.scheduler.perform(.summon, on: self.app)
                    found = .warm
                case .suspended:
                    try self.scheduler.perform(.summon, on: self.app)
                    found = .thawed
                case .notRunning:
                    try self.scheduler.perform(.launch, on: self.app)
                    found = .cold
                }
                // A launch that fails, or a kill meanwhile, ends in notRunning: try again from there.
                guard try await self.wait(for: [.active, .notRunning]) == .active else { continue }
                if found == .cold && self.status()?.restoredFrom != nil { return .restored }
                return found
            } catch let error as SchedulerError where error.code == .illegalCommand {
                // Refused because the state moved since it was read (L1): read it again.
                continue
            }
        }
        throw ForegroundFailure(description: "function \(self.name) did not settle in \(Self.attemptLimit) attempts")
    }

    /// Waits for a transition into one of `states`; fails naming the function after `foregroundTimeout`.
    ///
    /// - Returns: The state reached.
    @discardableResult
    private func wait(for states: Set<AppState>) async throws -> AppState {
        let scheduler = self.scheduler
        let app = self.app
        let reached = await self.waiters.wait(for: app, in: states, timeout: Self.foregroundTimeout) {
            scheduler.status(taskLimit: 0).first { $0.app == app }?.state
        }
        guard let reached else {
            let state = self.status().map { "\($0.state)" } ?? "unknown"
            throw ForegroundFailure(
                description: "function \(self.name) did not reach \(states.map(\.rawValue).sorted()) "
                    + "within \(Self.foregroundTimeout) (it is \(state))"
            )
        }
        return reached
    }
}
