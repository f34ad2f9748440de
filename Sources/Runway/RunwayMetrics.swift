import CoreMetrics
import RunwayCore
import RunwayLocking
import RunwayProcesses

/// The scheduler's metrics (swift-metrics). Labels and dimensions are bounded: reasons and causes are
/// reported by kind, never with free-form values such as exit statuses.
///
/// | label | kind | dimensions |
/// |---|---|---|
/// | `runway_transitions_total` | counter | `from`, `to`, `cause` |
/// | `runway_suspensions_total` | counter | |
/// | `runway_terminations_total` | counter | `reason` |
/// | `runway_background_tasks_begun_total` | counter | |
/// | `runway_background_tasks_ended_total` | counter | |
/// | `runway_background_tasks_refused_total` | counter | `reason` |
/// | `runway_expiration_handlers_called_total` | counter | |
/// | `runway_suspensions_unconfirmed_total` | counter | |
/// | `runway_signals_refused_total` | counter | `signal` |
/// | `runway_wakeup_lateness` | timer (ns) | |
/// | `runway_app_restarts_total` | counter | `app` |
/// | `runway_app_log_lines_refused_total` | counter | `app`, `stream` |
/// | `runway_log_lines_refused_total` | counter | `stream` |
///
/// Every series of fixed words is made at zero when the metrics are (`RunwayMetrics+Initial.swift`), so that a
/// backend that exports what it was handed shows them before their first event.
struct RunwayMetrics: Sendable {
    let factory: any MetricsFactory
    /// The transition and termination counters made so far, one per dimension set (bounded: states, causes and
    /// reasons are kinds), so that a transition allocates nothing once its counters exist.
    private let made = MadeCounters()

    /// A class, so that the struct stays copyable and its copies share the counters.
    private final class MadeCounters: Sendable {
        let lock = RunwayLock(Made())
    }

    /// Metrics over `factory`, with every series of fixed words made at zero.
    init(factory: any MetricsFactory) {
        self.factory = factory
        self.makeInitialSeries()
    }

    private struct Made: ~Copyable {
        var transitions: [TransitionDimensions: Counter] = [:]
        var terminations: [String: Counter] = [:]
    }

    private struct TransitionDimensions: Hashable {
        var from: AppState
        var to: AppState
        var cause: String
    }

    /// Makes the transition counter of `from`, `to`, `cause` and the termination counter of `reason` (kinds), at
    /// zero, kept for the transitions to come.
    func makeCounters(transitions: [(from: AppState, to: AppState, cause: String)], terminations: [String]) {
        self.made.lock.withLock { made in
            for (from, to, cause) in transitions {
                let key = TransitionDimensions(from: from, to: to, cause: cause)
                guard made.transitions[key] == nil else { continue }
                made.transitions[key] = Counter(
                    label: "runway_transitions_total",
                    dimensions: [("from", from.rawValue), ("to", to.rawValue), ("cause", cause)],
                    factory: self.factory
                )
            }
            for reason in terminations where made.terminations[reason] == nil {
                made.terminations[reason] = Counter(
                    label: "runway_terminations_total",
                    dimensions: [("reason", reason)],
                    factory: self.factory
                )
            }
        }
    }

    func transition(_ event: TransitionEvent) {
        let cause = event.cause.kind
        let terminated: String? =
            if case .terminated(let reason) = event.cause, event.to == .notRunning { reason.kind } else { nil }
        let (transitions, terminations) = self.made.lock.withLock { made -> (Counter, Counter?) in
            let key = TransitionDimensions(from: event.from, to: event.to, cause: cause)
            let transitions: Counter
            if let existing = made.transitions[key] {
                transitions = existing
            } else {
                transitions = Counter(
                    label: "runway_transitions_total",
                    dimensions: [("from", event.from.rawValue), ("to", event.to.rawValue), ("cause", cause)],
                    factory: self.factory
                )
                made.transitions[key] = transitions
            }
            guard let terminated else { return (transitions, nil) }
            if let existing = made.terminations[terminated] { return (transitions, existing) }
            let terminations = Counter(
                label: "runway_terminations_total",
                dimensions: [("reason", terminated)],
                factory: self.factory
            )
            made.terminations[terminated] = terminations
            return (transitions, terminations)
        }
        transitions.increment()
        if event.to == .suspended {
            Counter(label: "runway_suspensions_total", factory: self.factory).increment()
        }
        // An immediate exits-on-suspend termination publishes two steps with this cause (E1: active -> inactive ->
        // notRunning): a termination is counted once, when the app is gone.
        terminations?.increment()
        // A restart publishes two steps (L9: notRunning -> inactive -> active); it is counted once, at the first.
        if case .restart = event.cause, event.from == .notRunning { self.appRestarted(event.app) }
    }

    func taskBegun() {
        Counter(label: "runway_background_tasks_begun_total", factory: self.factory).increment()
    }

    func taskEnded() {
        Counter(label: "runway_background_tasks_ended_total", factory: self.factory).increment()
    }

    func taskRefused(_ refusal: TaskRefusal) {
        Counter(
            label: "runway_background_tasks_refused_total",
            dimensions: [("reason", refusal.code)],
            factory: self.factory
        ).increment()
    }

    /// An expiration handler called (B4): an embedded app's, here on the loop, or a process app's, whose
    /// `backgroundTaskWillExpire` was written to it (its handler runs in its own process).
    func expirationHandlerCalled() {
        Counter(label: "runway_expiration_handlers_called_total", factory: self.factory).increment()
    }

    /// A suspension of a process app that the kernel did not show within `confirmationTimeout` (P1), whatever
    /// follows.
    func suspensionUnconfirmed() {
        Counter(label: "runway_suspensions_unconfirmed_total", factory: self.factory).increment()
    }

    /// A signal to a process app's process that the kernel refused (any error but ESRCH), by `signal`
    /// (`SIGSTOP`, `SIGCONT`, `SIGTERM`, `SIGKILL`); the daemon's log names the app, pid and errno.
    func signalRefused(_ signal: String) {
        Counter(label: "runway_signals_refused_total", dimensions: [("signal", signal)], factory: self.factory)
            .increment()
    }

    /// A restart of `app` after an exit Runway did not cause (KeepAlive): for the restart logic to call when it
    /// launches the app again. The daemon's Prometheus export lists it (Docs/Operations.md).
    func appRestarted(_ app: AppID) {
        Counter(
            label: "runway_app_restarts_total",
            dimensions: [("app", app.bundleIdentifier)],
            factory: self.factory
        ).increment()
    }

    /// A line of `app`'s output not written to its output file (kept in the ring only): the file could not be
    /// opened, a write failed, or it is at `LogFileSizeLimit` with rotation blocked.
    func appLogLineRefused(_ app: AppID, _ stream: AppLogStream) {
        Counter(
            label: "runway_app_log_lines_refused_total",
            dimensions: [("app", app.bundleIdentifier), ("stream", stream.rawValue)],
            factory: self.factory
        ).increment()
        Counter(
            label: "runway_log_lines_refused_total",
            dimensions: [("stream", stream.rawValue)],
            factory: self.factory
        ).increment()
    }

    /// How late the wake-up ran after the deadline it was armed for.
    func wakeupLateness(_ lateness: TimeSpan) {
        Timer(label: "runway_wakeup_lateness", factory: self.factory).recordNanoseconds(max(0, lateness.nanoseconds))
    }
}

extension TransitionCause {
    /// The cause without its payload: `command`, `noOutstandingTasks`, `budgetExpired`, `terminated`,
    /// `backgroundWake`.
    var kind: String {
        switch self {
        case .command: return "command"
        case .noOutstandingTasks: return "noOutstandingTasks"
        case .budgetExpired: return "budgetExpired"
        case .terminated: return "terminated"
        case .restart: return "restart"
        case .backgroundWake: return "backgroundWake"
        }
    }
}

extension TerminationReason {
    /// The reason without its payload (`exited`, not `exited(3)`), for bounded metric dimensions.
    var kind: String {
        switch self {
        case .spawnFailed: return "spawnFailed"
        case .exited: return "exited"
        case .signaled: return "signaled"
        default: return self.description
        }
    }
}
