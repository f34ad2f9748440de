import RunwayLocking

/// Runs an embedded app's work only while the app may run (Behaviour.md A2).
///
/// Work submitted while the app is active, inactive or in the background starts at once as a task. Work
/// submitted while it is suspended is held, in order, and started once the app has handled the last message of its
/// resume: after `didBecomeActive` returns on a summon (`willEnterForeground` when it comes back inactive, L10),
/// after `backgroundWake` returns on a wake-up; work submitted meanwhile is held behind it. When the app terminates,
/// held work is dropped without running and running work is cancelled (`Task.isCancelled` becomes true).
/// While the app is not running, `submit` refuses work.
///
/// - Note: Suspension is cooperative: work that is already running when the app is suspended is not
///   preempted (Swift tasks cannot be frozen); only work not yet started is held. Check the app's
///   `RunwayApplication.state` at natural pause points if that matters.
/// - Note: Thread-safe; every method may be called from any thread or task.
public final class RunwayAppExecutor: Sendable {
    /// The most work items held for a suspended app; `submit` refuses more.
    public static let heldWorkLimit = 1_024

    private enum Phase {
        case notRunning
        case running
        case suspended
    }

    private struct State: ~Copyable {
        var phase = Phase.notRunning
        var held: [@Sendable () async -> Void] = []
        var running: [UInt64: Task<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = RunwayLock(State())

    init() {}

    /// Submits work for the app.
    ///
    /// - Returns: true if the work was started or held; false if the app is not running, or suspended with
    ///   `heldWorkLimit` items already held.
    @discardableResult
    public func submit(_ work: @escaping @Sendable () async -> Void) -> Bool {
        self.state.withLock { state in
            switch state.phase {
            case .notRunning:
                return false
            case .suspended:
                guard state.held.count < Self.heldWorkLimit else { return false }
                state.held.append(work)
                return true
            case .running:
                self.start(work, in: &state)
                return true
            }
        }
    }

    /// True while the app is suspended; read under the executor's lock, from any thread. For this package's
    /// tests (embedders read `RunwayApplication.state`).
    package var isSuspended: Bool { self.state.withLock { $0.phase == .suspended } }

    /// The number of items held for the suspended app; read under the executor's lock, from any thread. For
    /// this package's tests.
    package var heldCount: Int { self.state.withLock { $0.held.count } }

    private func start(_ work: @escaping @Sendable () async -> Void, in state: inout State) {
        let id = state.nextID
        state.nextID += 1
        // The task removes itself when done; it takes the lock, so it cannot run before the insertion below.
        state.running[id] = Task {
            await work()
            _ = self.state.withLock { $0.running.removeValue(forKey: id) }
        }
    }

    // MARK: Driven by the scheduler's loop

    func launched() {
        self.state.withLock { $0.phase = .running }
    }

    func suspended() {
        self.state.withLock { $0.phase = .suspended }
    }

    func resumed() {
        self.state.withLock { state in
            state.phase = .running
            let held = state.held
            state.held = []
            for work in held { self.start(work, in: &state) }
        }
    }

    func terminated() {
        let running = self.state.withLock { state in
            state.phase = .notRunning
            state.held = []
            defer { state.running = [:] }
            return Array(state.running.values)
        }
        for task in running { task.cancel() }
    }
}
