import Foundation
import RunwayCore
import RunwayLocking

/// Runs the store's changes off the loop thread (Behaviour.md R1): a save's fsyncs take milliseconds, which the loop
/// thread needs for deadlines. One serial queue; per app at most one change waits: a newer save or discard replaces
/// the one waiting (the newest state wins, and every waiter is told the outcome of the change that replaced its own),
/// so what waits is bounded by one blob (`StateRestorationByteLimit`) per app whatever an app sends. An ending
/// recorded after a save waits with it and is applied after it; a later save drops it (it was the earlier run's).
///
/// Thread-safe: the waiting changes are behind a lock; the completions run on the writer's queue.
final class PreservedStateWriter: Sendable {
    typealias Completion = @Sendable (PreservedStateError?) -> Void

    private enum Content {
        case save(state: [UInt8], versionKey: String?)
        case discard
    }

    private struct Waiting {
        var content: Content?
        /// An ending to record after the content: `.some(nil)` clears it (a run using the state goes on).
        var ending: RunEnding??
        var completions: [Completion] = []
    }

    private struct State {
        var waiting: [String: Waiting] = [:]
        /// Apps with a change waiting, in the order they first asked.
        var order: [String] = []
    }

    let store: PreservedStateStore
    private let state = RunwayLock(State())
    private let queue = DispatchQueue(label: "runway-preserved-state")
    private let report: @Sendable (String) -> Void

    /// - Parameters:
    ///   - store: Where the changes go.
    ///   - report: Told of each change that failed (a full disk, a directory that cannot be created).
    init(store: PreservedStateStore, report: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.report = report
    }

    /// Stores `state` for `app`; `done` runs on the writer's queue once it is durable (nil) or failed.
    func save(app: String, state: [UInt8], versionKey: String?, done: @escaping Completion) {
        self.enqueue(app) { waiting in
            waiting.content = .save(state: state, versionKey: versionKey)
            waiting.ending = .none
            waiting.completions.append(done)
        }
    }

    /// Removes `app`'s stored state; `done` runs once it is gone.
    func discard(app: String, done: @escaping Completion = { _ in }) {
        self.enqueue(app) { waiting in
            waiting.content = .discard
            waiting.ending = .none
            waiting.completions.append(done)
        }
    }

    /// Records how the run that preserved `app`'s state ended; nil: a run that restored it goes on, so that a daemon
    /// killed meanwhile is told from the ending recorded before (R6).
    func recordEnding(app: String, ending: RunEnding?) {
        self.enqueue(app) { $0.ending = .some(ending) }
    }

    /// Runs `work` on the writer's queue, after the changes already scheduled.
    func perform(_ work: @escaping @Sendable () -> Void) {
        self.queue.async(execute: work)
    }

    /// Waits until every change asked so far is done. For the daemon's stop and for tests.
    func flush() {
        self.queue.sync {}
    }

    private func enqueue(_ app: String, _ change: (inout Waiting) -> Void) {
        let schedule = self.state.withLock { state -> Bool in
            let isNew = state.waiting[app] == nil
            change(&state.waiting[app, default: Waiting()])
            if isNew { state.order.append(app) }
            return isNew
        }
        if schedule { self.queue.async { self.writeNext() } }
    }

    /// Writer queue: applies the oldest app's waiting change.
    private func writeNext() {
        let next = self.state.withLock { state -> (String, Waiting)? in
            guard !state.order.isEmpty else { return nil }
            let app = state.order.removeFirst()
            guard let waiting = state.waiting.removeValue(forKey: app) else { return nil }
            return (app, waiting)
        }
        guard let (app, waiting) = next else { return }
        var failure: PreservedStateError?
        do throws(PreservedStateError) {
            switch waiting.content {
            case .save(let state, let versionKey)?: try self.store.save(app: app, state: state, versionKey: versionKey)
            case .discard?: try self.store.discard(app: app)
            case nil: break
            }
            if case .some(let ending) = waiting.ending { try self.store.recordEnding(app: app, ending: ending) }
        } catch {
            failure = error
            self.report("preserved state of \(app) not changed: \(error)")
        }
        for completion in waiting.completions { completion(failure) }
    }
}
