import Foundation
import RunwayCore
import RunwayLocking

/// Runs the store's changes off the loop thread (Behaviour.md R1): a save's fsyncs take milliseconds, which the loop
/// thread needs for deadlines. One serial queue; per app at most one change waits: a newer save or discard replaces
/// the one waiting (the newest state wins, and every waiter is told the outcome of the change that replaced its own),
/// so what waits is bounded by one blob (`StateRestorationByteLimit`) per app whatever an app sends. An ending
/// recorded after a save waits with it and is applied after it; a later save drops it (it was the earlier run's).
///
/// Spacing: one app's file is written at most once per `interval` (`StateRestorationWriteInterval`, 1 s by
/// default). A change asked sooner waits for the rest of the interval, replaced by any newer one meanwhile, so an
/// app saving in a loop costs the disk one write of its state per interval, and the other apps' writes are not
/// held behind its: the writer takes each app's change when it is due. `flush` and `perform` write what waits at
/// once.
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
        /// When each app's file was last written (`DispatchTime` uptime nanoseconds): one entry per app that wrote.
        var lastWrite: [String: UInt64] = [:]
        /// Changes applied so far (tests).
        var writes = 0
    }

    let store: PreservedStateStore
    /// `StateRestorationWriteInterval`, in nanoseconds.
    private let intervalNanoseconds: UInt64
    private let state = RunwayLock(State())
    private let queue = DispatchQueue(label: "runway-preserved-state")
    private let report: @Sendable (String) -> Void

    /// - Parameters:
    ///   - store: Where the changes go.
    ///   - interval: The least time between two writes of one app's file (`StateRestorationWriteInterval`).
    ///   - report: Told of each change that failed (a full disk, a directory that cannot be created).
    init(store: PreservedStateStore, interval: Duration, report: @escaping @Sendable (String) -> Void) {
        self.store = store
        let (seconds, attoseconds) = interval.components
        self.intervalNanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        self.report = report
    }

    /// Changes applied to the store so far.
    var writes: Int { self.state.withLock { $0.writes } }

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

    /// Runs `work` on the writer's queue, after the changes asked so far (written now, whatever their spacing).
    func perform(_ work: @escaping @Sendable () -> Void) {
        self.queue.async {
            self.writeAllWaiting()
            work()
        }
    }

    /// Waits until every change asked so far is done, writing what waits for its spacing now. For the daemon's stop
    /// and for tests.
    func flush() {
        self.queue.sync { self.writeAllWaiting() }
    }

    private func enqueue(_ app: String, _ change: (inout Waiting) -> Void) {
        let now = DispatchTime.now().uptimeNanoseconds
        let delay = self.state.withLock { state -> UInt64? in
            let isNew = state.waiting[app] == nil
            change(&state.waiting[app, default: Waiting()])
            guard isNew else { return nil }
            let due = state.lastWrite[app].map { $0 + self.intervalNanoseconds } ?? 0
            return due > now ? due - now : 0
        }
        guard let delay else { return }
        if delay == 0 {
            self.queue.async { self.write(app) }
        } else {
            self.queue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(delay, UInt64(Int.max))))) {
                self.write(app)
            }
        }
    }

    /// Writer queue: every app's waiting change, now.
    private func writeAllWaiting() {
        for app in self.state.withLock({ Array($0.waiting.keys) }) { self.write(app) }
    }

    /// Writer queue: applies `app`'s waiting change, if it still has one (`flush` may have written it).
    private func write(_ app: String) {
        let next = self.state.withLock { state -> Waiting? in
            guard let waiting = state.waiting.removeValue(forKey: app) else { return nil }
            state.lastWrite[app] = DispatchTime.now().uptimeNanoseconds
            state.writes += 1
            return waiting
        }
        guard let waiting = next else { return }
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
