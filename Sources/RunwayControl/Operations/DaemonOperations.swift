import Logging
import Metrics
@_spi(Processes) import Runway
import RunwayConfig
import RunwayLocking
import RunwayLoop

/// The daemon's operator-facing parts around its scheduler: its own log (level and format), the Prometheus
/// metrics and their HTTP endpoint, and the systemd notifications (Docs/Operations.md, Docs/Deployment.md).
/// `Daemon.run` makes one, then calls `systemdNotifications`, `serve` and `stop` in that order.
///
/// Threading: any task. Time: none of its own (the metrics read the loop's clock).
final class DaemonOperations: Sendable {
    /// Nil when metrics are off (no `MetricsAddress`): the scheduler then records into swift-metrics' default.
    let metrics: DaemonMetrics?
    let address: MetricsAddress?
    let settings: OperationsSettings
    private let server = RunwayLock<MetricsServer?>(nil)
    /// The answers of `/healthz` and `/readyz`; nil until `serve` (and when metrics are off).
    private let probes = RunwayLock<DaemonProbes?>(nil)

    init(options: DaemonOptions, configuration: RunwayConfiguration) {
        self.settings = configuration.daemon.operations
        self.address = options.metricsAddress ?? self.settings.metricsAddress
        self.metrics = self.address == nil ? nil : DaemonMetrics(perApp: self.settings.metricsPerApp)
        if let metrics = self.metrics, options.bootstrapMetrics {
            // Process-wide and once: only `runway run`, one daemon per process, asks for it.
            MetricsSystem.bootstrap(metrics.factory)
        }
    }

    /// The daemon's logger: `--log-level`, else `LogLevel`, else notice; `--log-format`, else `LogFormat`.
    static func logger(options: DaemonOptions, configuration: RunwayConfiguration) -> Logger {
        let operations = configuration.daemon.operations
        let format = options.logFormat ?? operations.logFormat
        var logger =
            switch format {
            // swift-log's text format, on the same non-blocking queue as the JSON lines.
            case .text:
                Logger(label: "runway") { StreamLogHandler(label: $0, stream: DaemonOutputStream.standardError) }
            case .json: Logger(label: "runway", factory: { JSONLogHandler(label: $0) })
            }
        logger.logLevel =
            options.logLevel ?? operations.logLevel.flatMap { Logger.Level(rawValue: $0.rawValue) } ?? .notice
        return logger
    }

    /// Starts counting for `scheduler` and serves `GET /metrics`, `/healthz` and `/readyz` when an address is set;
    /// `/readyz` answers 503 until `setPhase(.ready)`.
    ///
    /// - Returns: The endpoint's URL, or nil when metrics are off.
    /// - Throws: An error naming the address when it cannot be bound.
    func serve(_ scheduler: RunwayScheduler) async throws -> String? {
        guard let metrics = self.metrics, let address = self.address else { return nil }
        metrics.attach(scheduler)
        let loop = scheduler.loopThread
        let probes = DaemonProbes(waiterLimit: self.settings.metricsConnectionLimit) { loop.execute($0) }
        self.probes.withLock { $0 = probes }
        do {
            let server = try await MetricsServer.start(address: address, settings: self.settings, probes: probes) {
                metrics.render()
            }
            self.server.withLock { $0 = server }
            return server.url
        } catch {
            throw MetricsAddressError(address: address, reason: "\(error)")
        }
    }

    /// Where the daemon is in its life, as `/readyz` answers it (systemd's `READY=1` and `STOPPING=1`).
    func setPhase(_ phase: DaemonProbes.Phase) {
        self.probes.withLock { $0 }?.setPhase(phase)
    }

    /// systemd's notifications (`NOTIFY_SOCKET`, `WATCHDOG_USEC`) on `scheduler`'s loop; each problem goes to
    /// `report` (a warning: systemd times a start out, or its watchdog fires, which is its own signal).
    func systemdNotifications(
        on scheduler: RunwayScheduler,
        report: @escaping @Sendable (String) -> Void
    ) -> SystemdNotifications {
        let interval: UInt64?
        switch SystemdNotifier.watchdogInterval() {
        case .success(let value): interval = value
        case .failure(let problem):
            report("\(problem)")
            interval = nil
        }
        return SystemdNotifications(
            notifier: SystemdNotifier(),
            watchdogIntervalMilliseconds: interval,
            scheduler: scheduler,
            report: report
        )
    }

    /// Closes the metrics endpoint.
    func stop() async {
        let server = self.server.withLock { server in
            defer { server = nil }
            return server
        }
        await server?.stop()
    }
}

/// The metrics endpoint could not be set up.
struct MetricsAddressError: Error, CustomStringConvertible {
    var address: MetricsAddress
    var reason: String

    var description: String { "cannot serve metrics on \(self.address) (MetricsAddress): \(self.reason)" }
}
