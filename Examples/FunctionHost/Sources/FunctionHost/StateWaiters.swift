@_spi(Processes) import RunwayCore
import Synchronization

/// Tasks waiting for a function to reach a state, resumed from the scheduler's transition observer (L8), and the
/// last transitions of each function for the status page and the tests.
///
/// The observer runs on Runway's loop thread, so it only takes a lock, appends and resumes continuations. Holds at
/// most `eventLimit` transitions per app; waiters are bounded by the requests in flight (each has one at a time).
final class StateWaiters: Sendable {
    /// The transitions kept per app, newest last.
    static let eventLimit = 64

    private struct Waiter {
        var id: UInt64
        var states: Set<AppState>
        var continuation: CheckedContinuation<AppState?, Never>
        /// Ends the wait with false at the timeout; cancelled when the state is reached first.
        var timer: Task<Void, Never>
    }

    private struct Table {
        var waiters: [AppID: [Waiter]] = [:]
        var events: [AppID: [TransitionEvent]] = [:]
        var nextID: UInt64 = 0
    }

    private let table = Mutex(Table())

    /// Called for every transition, on the loop thread.
    func transitioned(_ event: TransitionEvent) {
        let ready: [CheckedContinuation<AppState?, Never>] = self.table.withLock { table in
            table.events[event.app, default: []].append(event)
            if table.events[event.app]!.count > Self.eventLimit { table.events[event.app]!.removeFirst() }
            var ready: [CheckedContinuation<AppState?, Never>] = []
            table.waiters[event.app]?.removeAll { waiter in
                guard waiter.states.contains(event.to) else { return false }
                waiter.timer.cancel()
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume(returning: event.to) }
    }

    /// The app's last transitions, oldest first.
    func events(of app: AppID) -> [TransitionEvent] {
        self.table.withLock { $0.events[app] ?? [] }
    }

    /// Waits until the app makes a transition into one of `states`, or `timeout` passes.
    ///
    /// - Parameters:
    ///   - current: Read after the waiter is registered (so that no transition is missed between the two): when it
    ///     returns a state of `states`, the wait ends at once.
    /// - Returns: The state of `states` the app reached, nil on timeout.
    func wait(
        for app: AppID,
        in states: Set<AppState>,
        timeout: Duration,
        current: @Sendable () -> AppState?
    ) async -> AppState? {
        let id = self.table.withLock { table in
            table.nextID += 1
            return table.nextID
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<AppState?, Never>) in
            let timer = Task {
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                self.resume(app, id, with: nil)
            }
            self.table.withLock { table in
                table.waiters[app, default: []].append(
                    Waiter(id: id, states: states, continuation: continuation, timer: timer)
                )
            }
            if let state = current(), states.contains(state) { self.resume(app, id, with: state) }
        }
    }

    /// Resumes waiter `id` of `app` if it is still waiting.
    private func resume(_ app: AppID, _ id: UInt64, with value: AppState?) {
        let continuation: CheckedContinuation<AppState?, Never>? = self.table.withLock { table in
            guard let index = table.waiters[app]?.firstIndex(where: { $0.id == id }) else { return nil }
            let waiter = table.waiters[app]!.remove(at: index)
            waiter.timer.cancel()
            return waiter.continuation
        }
        continuation?.resume(returning: value)
    }
}
