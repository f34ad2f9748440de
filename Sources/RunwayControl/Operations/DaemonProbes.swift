import NIOCore
import RunwayLocking

/// What `GET /healthz` and `GET /readyz` on the metrics listener answer (Docs/Operations.md, "Health probes").
///
/// Liveness is the scheduler's loop turning: `loopAnswered` posts one no-op to the loop's inbox, without waiting
/// on the calling thread, and completes when the loop has run it. At most one such no-op waits at a time: the
/// probes that arrive while it waits share its answer (at most `waiterLimit` of them, and only within
/// `loopAnswerTimeout` of its posting; later ones are answered 503 at once), so a stuck loop holds one inbox item
/// and a bounded number of waiting probes however often they ask. Readiness is the daemon's phase (`Phase`) and,
/// once ready, the same loop answer: the control socket is served on that loop, so a loop that does not turn
/// serves no client either.
///
/// Neither reads an app: a probe costs one lock and at most one inbox item whatever the number of apps, and
/// renders no metrics (a probe is not a scrape).
///
/// Threading: any thread.
final class DaemonProbes: Sendable {
    /// Where the daemon is in its life, for `/readyz`.
    enum Phase: Sendable, Equatable {
        /// The configuration is being applied; the apps that start at load are being started.
        case starting
        /// The configuration is applied and the control socket listens (systemd's `READY=1`).
        case ready
        /// A stop has begun: the apps are being terminated (systemd's `STOPPING=1`).
        case stopping
    }

    /// How long a probe waits for the loop to run its no-op before it answers 503: well above a loop turn under
    /// load (milliseconds), below a kubelet's usual probe timeout (the shipped DaemonSet's is 5 s).
    static let loopAnswerTimeout = TimeAmount.seconds(2)

    /// What a probe gets from `loopAnswered`.
    enum LoopAnswer {
        /// Completes with true once the loop has run the no-op, with false when the loop refused it (stopped).
        case pending(EventLoopFuture<Bool>)
        /// The no-op waiting now was posted `loopAnswerTimeout` ago or more, or `waiterLimit` probes already
        /// wait for it: the loop is not turning, and this probe is answered at once.
        case notAnswering
    }

    private struct Waiting {
        var promise: EventLoopPromise<Bool>
        var postedAt: NIODeadline
        var waiters: Int
    }

    private struct State {
        var phase = Phase.starting
        /// The no-op waiting in the loop's inbox, shared by every probe that asks meanwhile.
        var waiting: Waiting?
    }

    /// Most probes that wait for one no-op (`MetricsConnectionLimit`: each holds a connection while it waits).
    let waiterLimit: Int
    private let post: @Sendable (@escaping @Sendable () -> Void) -> Bool
    private let state = RunwayLock(State())

    /// - Parameters:
    ///   - waiterLimit: Most probes that wait for one no-op at once.
    ///   - post: Sends work to the scheduler's loop without waiting (`EventLoopThread.execute`); false when the
    ///     loop refused it (stopped, or its inbox full).
    init(waiterLimit: Int, post: @escaping @Sendable (@escaping @Sendable () -> Void) -> Bool) {
        precondition(waiterLimit > 0, "waiterLimit=\(waiterLimit)")
        self.waiterLimit = waiterLimit
        self.post = post
    }

    var phase: Phase { self.state.withLock { $0.phase } }

    func setPhase(_ phase: Phase) {
        self.state.withLock { $0.phase = phase }
    }

    /// Posts a no-op to the loop for this probe, or joins the one waiting; a loop that does not turn never
    /// completes it, so the caller bounds the wait (`loopAnswerTimeout`).
    func loopAnswered(on eventLoop: any EventLoop) -> LoopAnswer {
        let now = NIODeadline.now()
        let joined = self.state.withLock { state -> (EventLoopPromise<Bool>, isNew: Bool)? in
            if var waiting = state.waiting {
                guard waiting.waiters < self.waiterLimit, now - waiting.postedAt < Self.loopAnswerTimeout else {
                    return nil
                }
                waiting.waiters += 1
                state.waiting = waiting
                return (waiting.promise, false)
            }
            let promise = eventLoop.makePromise(of: Bool.self)
            state.waiting = Waiting(promise: promise, postedAt: now, waiters: 1)
            return (promise, true)
        }
        guard let (promise, isNew) = joined else { return .notAnswering }
        if isNew {
            let accepted = self.post { [self] in self.finish(promise, answered: true) }
            if !accepted { self.finish(promise, answered: false) }
        }
        return .pending(promise.futureResult.hop(to: eventLoop))
    }

    /// Clears `promise` from `waiting` (the next probe posts a new no-op) and completes it.
    private func finish(_ promise: EventLoopPromise<Bool>, answered: Bool) {
        self.state.withLock { state in
            if state.waiting?.promise.futureResult === promise.futureResult { state.waiting = nil }
        }
        promise.succeed(answered)
    }
}
