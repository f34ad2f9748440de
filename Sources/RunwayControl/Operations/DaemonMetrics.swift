import Prometheus
@_spi(Processes) import Runway
import RunwayBuildInfo
import RunwayConfig
@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayLocking

/// The daemon's Prometheus registry and the metrics it records itself, next to those the runtime records
/// through swift-metrics (`factory`, handed to `RunwayScheduler`), and the daemon process's own `process_*`
/// series read at each scrape (`ProcessMetrics`). Docs/Operations.md lists every metric.
///
/// Each daemon has its own registry, passed to its scheduler explicitly, so several daemons (or schedulers) in
/// one process never share counters; `runway run` also bootstraps `MetricsSystem` with `factory` so that a
/// library's metrics land in the same export.
///
/// The per-app series are not in the registry: `AppMetricsTable` keeps a row per app, updated by each
/// transition, and writes them after the registry's text. A scrape registers nothing and looks up two counters
/// whatever the number of apps (`MetricsPerApp` `state`); at `all` it also reads each app's tasks, crash loop and
/// containment on the loop, O(apps).
///
/// Threading: any thread. The table is changed on the loop thread (a transition observer, and the scrape's hop
/// for apps registered since); `render()` runs on the metrics server's thread, which hops to the loop once
/// (microseconds at `state`) for the new apps and the loop's idle time. Time: the loop's monotonic clock for the
/// utilisation counter.
final class DaemonMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let factory: RunwayPrometheusFactory
    let perApp: MetricsPerApp
    private let scheduler: RunwayLock<RunwayScheduler?> = RunwayLock(nil)
    private let table = RunwayLock(AppMetricsTable())
    /// The loop's busy time already added to `runway_loop_busy_seconds_total`, and the origin it counts from.
    private let loop = RunwayLock<LoopSample?>(nil)

    private struct LoopSample {
        var startedAt: Instant
        var idleAtStart: TimeSpan
        /// Nanoseconds.
        var counted: Int64
    }

    init(perApp: MetricsPerApp = .state, build: RunwayBuildInfo = .current) {
        self.perApp = perApp
        self.factory = RunwayPrometheusFactory(registry: self.registry)
        let labels = [("version", build.version), ("commit", build.commit), ("build_type", build.buildType)]
        self.factory.gauge(DaemonMetricNames.buildInfo, labels: labels).set(to: 1.0)
    }

    /// Starts counting for `scheduler`'s apps and its loop: a row for every app registered so far, kept up to
    /// date by a transition observer. Call once.
    func attach(_ scheduler: RunwayScheduler) {
        // One loop turn for the observer and the first rows, so that no transition falls between the two.
        let sample = scheduler.runOnLoop {
            scheduler.observeTransitions { event in self.observe(event) }
            let apps = scheduler.appIDs(after: 0)
            self.table.withLock { $0.registered(apps) }
            for status in scheduler.status(taskLimit: 0) where status.state != .notRunning {
                self.table.withLock { $0.add(status.app, state: status.state) }
            }
            return (scheduler.eventLoop.now(), scheduler.eventLoop.idleTime() ?? .zero)
        }
        if let (now, idle) = sample {
            self.loop.withLock { $0 = LoopSample(startedAt: now, idleAtStart: idle, counted: 0) }
        }
        self.scheduler.withLock { $0 = scheduler }
        _ = self.factory.counter(DaemonMetricNames.scrapes)
        _ = self.factory.counter(DaemonMetricNames.loopBusy)
    }

    /// Counts one transition in the app's row. Loop thread; O(1).
    func observe(_ event: TransitionEvent) {
        self.table.withLock { $0.record(event) }
    }

    /// The exposition text of every metric, with the loop's busy time read now.
    func render() -> [UInt8] {
        self.factory.counter(DaemonMetricNames.scrapes).increment()
        var details: [AppID: AppMetricsTable.Detail] = [:]
        if let scheduler = self.scheduler.withLock({ $0 }) {
            details = self.sample(scheduler)
        }
        var body = self.registry.emitToBuffer()
        // A copy (O(1), copy on write): the loop is not held while the text is written.
        let table = self.table.withLock { $0 }
        table.render(into: &body, perApp: self.perApp, details: details)
        ProcessMetrics.read()?.render(into: &body)
        DaemonOutputStream.renderDropped(into: &body)
        return body
    }

    /// One hop to the loop: the apps registered since the last scrape, the loop's idle time, and at `all` each
    /// app's tasks, crash loop and containment.
    private func sample(_ scheduler: RunwayScheduler) -> [AppID: AppMetricsTable.Detail] {
        let perApp = self.perApp
        // Read on the loop thread, where the kernel wait that woke it has been counted (EventLoopThread+Metrics).
        guard
            let (now, idle, details) = scheduler.runOnLoop({
                let seen = self.table.withLock { $0.registrationsSeen }
                let added = scheduler.appIDs(after: seen)
                if !added.isEmpty { self.table.withLock { $0.registered(added) } }
                return (
                    scheduler.eventLoop.now(), scheduler.eventLoop.idleTime() ?? .zero, Self.details(perApp, scheduler)
                )
            })
        else { return [:] }
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
        return details
    }

    /// What no event carries, read on the loop at the `all` level; empty at `state`.
    private static func details(
        _ perApp: MetricsPerApp,
        _ scheduler: RunwayScheduler
    ) -> [AppID: AppMetricsTable.Detail] {
        guard perApp == .all else { return [:] }
        let processes = scheduler.processes()
        var details: [AppID: AppMetricsTable.Detail] = [:]
        for status in scheduler.status(taskLimit: 0) {
            details[status.app] = AppMetricsTable.Detail(
                tasks: status.taskCount,
                crashLooping: status.restart.crashLooping,
                contained: processes[status.app].map(\.containment.isContained)
            )
        }
        return details
    }
}
