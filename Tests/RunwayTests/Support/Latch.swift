import RunwayLocking

/// Counts events from any thread; `wait` suspends until `count` events happened or the timeout passed.
/// The timeout only bounds a failing test: no assertion depends on how long anything takes.
final class Latch: Sendable {
    private struct State {
        var remaining: Int
        var timedOut = false
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let state: RunwayLock<State>

    init(count: Int) {
        self.state = RunwayLock(State(remaining: count))
    }

    /// Records one event. Any thread.
    func countDown() {
        let waiter = self.state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.remaining -= 1
            guard state.remaining == 0 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: true)
    }

    /// Returns true once `count` events happened, false if `timeout` passed first. One waiter at a time.
    func wait(timeout: Duration = .seconds(10)) async -> Bool {
        let timer = Task {
            try await Task.sleep(for: timeout)
            self.expire()
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let result = self.state.withLock { state -> Bool? in
                if state.remaining <= 0 { return true }
                if state.timedOut { return false }
                state.waiter = continuation
                return nil
            }
            if let result { continuation.resume(returning: result) }
        }
    }

    private func expire() {
        let waiter = self.state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.timedOut = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: false)
    }
}

/// A thread-safe append-only log, read by the test after the loop is shut down.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = RunwayLock<[Value]>([])

    func append(_ value: Value) {
        self.storage.withLock { $0.append(value) }
    }

    var values: [Value] { self.storage.withLock { $0 } }
}

extension Latch {
    /// True once `count` events happened. Any thread; for spinning on a thread that must not suspend.
    var isOpen: Bool { self.state.withLock { $0.remaining <= 0 } }
}
