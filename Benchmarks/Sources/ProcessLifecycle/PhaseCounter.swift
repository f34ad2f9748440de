import Synchronization

/// Counts the events of one phase as the scheduler reports them on its loop thread, and wakes the benchmark once
/// the phase has seen them all: one wake-up per phase, so that waiting adds no work to the loop thread (polling
/// `RunwayScheduler.processes()` every 200 µs built a 200-entry snapshot on the loop thread each time).
///
/// Thread rules: `record` is called on the loop thread (from an observer); `expect` and `wait` on the benchmark's
/// task. Events outside an armed phase are ignored.
final class PhaseCounter: Sendable {
    private struct State {
        var kind: Kind?
        var seen = 0
        var target = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    /// What a phase waits for.
    enum Kind: Sendable {
        case suspended
        case resumed
        case notRunning
    }

    private let state = Mutex(State())

    /// Arms the counter for `count` events of `kind`; call before the request that causes them.
    func expect(_ count: Int, of kind: Kind) {
        self.state.withLock { $0 = State(kind: kind, seen: 0, target: count, waiter: nil) }
    }

    /// One event of `kind`, on the loop thread.
    func record(_ kind: Kind) {
        let waiter: CheckedContinuation<Void, Never>? = self.state.withLock { state in
            guard state.kind == kind else { return nil }
            state.seen += 1
            guard state.seen == state.target, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns once the armed phase has seen all its events.
    func wait() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let done = self.state.withLock { state in
                if state.seen >= state.target { return true }
                state.waiter = waiter
                return false
            }
            if done { waiter.resume() }
        }
    }
}
