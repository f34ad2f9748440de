import Prometheus
@_spi(Processes) import Runway
@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayLocking

/// The daemon's Prometheus registry and the metrics it records itself, next to those the runtime records
/// through swift-metrics (`factory`, handed to `RunwayScheduler`). Docs/Operations.md lists every metric.
///
/// Each daemon has its own registry, passed to its scheduler explicitly, so several daemons (or schedulers) in
/// one process never share counters; `runway run` also bootstraps `MetricsSystem` with `factory` so that a
/// library's metrics land in the same export.
///
/// Threading: any thread. `observe(_:)` is called on the loop thread (a transition observer); `render()` on the
/// metrics server's thread, which hops to the loop (twice, microseconds) for the per-app snapshot and the loop's
/// idle time. Time: the loop's monotonic clock for the utilisation counter.
final class DaemonMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let factory: RunwayPrometheusFactory
    private let scheduler: RunwayLock<RunwayScheduler?> = RunwayLock(nil)
    /// The loop's busy time already added to `runway_loop_busy_seconds_total`, and the origin it counts from.
    private let loop = RunwayLock<LoopSample?>(nil)

    private struct LoopSample {
        var startedAt: Instant
        var idleAtStart: TimeSpan
        /// Nanoseconds.
        var counted: Int64
    }

    init() {
        self.factory = RunwayPrometheusFactory(registry: self.registry)
    }

    /// Starts counting for `scheduler`'s apps (every app registered so far shows 0 in its counters, rather than
    /// nothing, until its first event) and its loop. Call once, after the apps are registered.
    func attach(_ scheduler: RunwayScheduler) {
        let sample = scheduler.runOnLoop {
            (scheduler.eventLoop.now(), scheduler.eventLoop.idleTime() ?? .zero)
        }
        if let (now, idle) = sample {
            self.loop.withLock { $0 = LoopSample(startedAt: now, idleAtStart: idle, counted: 0) }
        }
        self.scheduler.withLock { $0 = scheduler }
        for status in scheduler.status() { self.registerApp(status.app) }
        _ = self.factory.counter(DaemonMetricNames.scrapes)
        _ = self.factory.counter(DaemonMetricNames.loopBusy)
    }

    /// Counts one transition in the per-app counters. Loop thread; quick.
    func observe(_ event: TransitionEvent) {
        // A budget deadline ends in budgetExpired (suspended or exited, B6) or in a budgetOverrun termination.
        let labels = [("app", event.app.bundleIdentifier)]
        switch event.cause {
        case .budgetExpired:
            self.factory.counter(DaemonMetricNames.appExpirations, labels: labels).increment()
        case .terminated(.budgetOverrun):
            self.factory.counter(DaemonMetricNames.appExpirations, labels: labels).increment()
            self.factory.counter(DaemonMetricNames.appOverruns, labels: labels).increment()
        default:
            break
        }
    }

    /// Counts a restart of `app` by the daemon (KeepAlive): the restart logic calls this when it launches an
    /// app again after an exit it did not cause. Any thread.
    func appRestarted(_ app: AppID) {
        self.factory.counter(DaemonMetricNames.appRestarts, labels: [("app", app.bundleIdentifier)]).increment()
    }

    /// The exposition text of every metric, with the per-app gauges and the loop's busy time read now.
    func render() -> [UInt8] {
        self.factory.counter(DaemonMetricNames.scrapes).increment()
        if let scheduler = self.scheduler.withLock({ $0 }) {
            self.sample(scheduler)
        }
        return self.registry.emitToBuffer()
    }

    private func registerApp(_ app: AppID) {
        let labels = [("app", app.bundleIdentifier)]
        for name in [DaemonMetricNames.appExpirations, DaemonMetricNames.appOverruns, DaemonMetricNames.appRestarts] {
            _ = self.factory.counter(name, labels: labels)
        }
    }

    private func sample(_ scheduler: RunwayScheduler) {
        let statuses = scheduler.status(taskLimit: 0)
        self.factory.gauge(DaemonMetricNames.apps).set(to: Double(statuses.count))
        for status in statuses {
            let app = status.app.bundleIdentifier
            self.registerApp(status.app)
            for state in AppState.allCases {
                self.factory.gauge(DaemonMetricNames.appState, labels: [("app", app), ("state", state.rawValue)])
                    .set(to: state == status.state ? 1.0 : 0.0)
            }
            self.factory.gauge(DaemonMetricNames.appTasks, labels: [("app", app)]).set(to: Double(status.taskCount))
            self.factory.gauge(DaemonMetricNames.appCrashLooping, labels: [("app", app)])
                .set(to: status.restart.crashLooping ? 1.0 : 0.0)
        }
        for (app, process) in scheduler.processes() {
            self.factory.gauge(DaemonMetricNames.appContained, labels: [("app", app.bundleIdentifier)])
                .set(to: process.containment.isContained ? 1.0 : 0.0)
        }
        // Read on the loop thread, where the kernel wait that woke it has been counted (EventLoopThread+Metrics).
        guard
            let (now, idle) = scheduler.runOnLoop({
                (scheduler.eventLoop.now(), scheduler.eventLoop.idleTime() ?? .zero)
            })
        else { return }
        let added = self.loop.withLock { sample -> Int64 in
            guard var current = sample else { return 0 }
            let busy = (now - current.startedAt).nanoseconds - (idle.nanoseconds - current.idleAtStart.nanoseconds)
            let added = busy - current.counted
            guard added > 0 else { return 0 }
            current.counted = busy
            sample = current
            return added
        }
        if added > 0 {
            self.factory.counter(DaemonMetricNames.loopBusy).increment(by: Double(added) / 1e9)
        }
    }
}
