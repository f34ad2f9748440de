import CoreMetrics
import Prometheus
import Synchronization

/// The daemon's swift-metrics backend: swift-prometheus's collector registry, with a `# HELP` text for every
/// metric (`promtool check metrics` requires one) and Prometheus names where the runtime's swift-metrics label
/// is not one (Docs/Operations.md lists them).
///
/// swift-prometheus's own `PrometheusMetricsFactory` registers every metric with an empty help text, and the
/// registry refuses (fatalError) one name registered with two texts, so this factory is the only way metrics
/// reach `registry`: `DaemonMetrics` registers its own through ``counter(_:labels:)`` and ``gauge(_:labels:)``.
///
/// The runtime's `runway_app_restarts_total` is not registered here: the daemon counts restarts per app from the
/// transitions (`AppMetricsTable`), so that a fleet's per-app series stay out of the registry.
///
/// Threading: any thread (the registry locks). Handlers are cached by the registry per name and label set.
struct RunwayPrometheusFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    /// Calls that made or looked up a metric in `registry`: each costs a lock and a hash of its labels, and the
    /// first one for a label set copies that family, so a scrape must make a fixed number whatever the apps.
    let lookups = LookupCount()

    /// The runtime's swift-metrics labels the daemon counts elsewhere (see above).
    static let countedElsewhere: Set<String> = ["runway_app_restarts_total"]

    /// The runtime's swift-metrics labels that the export renames, to carry the unit Prometheus expects.
    static let renames = ["runway_wakeup_lateness": "runway_deadline_lateness_seconds"]

    /// Buckets of the deadline lateness histogram, in seconds: the loop serves a deadline microseconds late
    /// (Docs/Performance.md), so the default web-request buckets (5 ms and up) would put every sample in one.
    static let latenessBuckets: [Duration] = [
        .microseconds(10), .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(100),
        .milliseconds(500), .seconds(1),
    ]

    /// Value histograms (aggregating recorders) that no one registered buckets for.
    static let defaultValueBuckets: [Double] = [1, 5, 10, 50, 100, 500, 1_000, 5_000, 10_000]

    /// The help text of each exported name; unknown names (a library's) get a generic one, the same every time.
    static func help(for name: String) -> String {
        DaemonMetricNames.help[name] ?? "\(name) (swift-metrics)"
    }

    /// `name` whole (no namespace or unit parts to join) with its help text.
    private static func descriptor(_ name: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: Self.help(for: name))
    }

    private func name(_ label: String) -> String { Self.renames[label] ?? label }

    /// A counter of the daemon's own, registered with its help text.
    func counter(_ name: String, labels: [(String, String)] = []) -> Prometheus.Counter {
        self.lookups.add()
        return self.registry.makeCounter(descriptor: Self.descriptor(name), labels: labels)
    }

    /// A gauge of the daemon's own, registered with its help text.
    func gauge(_ name: String, labels: [(String, String)] = []) -> Prometheus.Gauge {
        self.lookups.add()
        return self.registry.makeGauge(descriptor: Self.descriptor(name), labels: labels)
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        if Self.countedElsewhere.contains(label) { return NOOPMetricsHandler.instance }
        return self.counter(self.name(label), labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        self.counter(self.name(label), labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        let name = self.name(label)
        guard aggregate else { return self.gauge(name, labels: dimensions) }
        self.lookups.add()
        return self.registry.makeValueHistogram(
            descriptor: Self.descriptor(name),
            labels: dimensions,
            buckets: Self.defaultValueBuckets
        )
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        self.gauge(self.name(label), labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let name = self.name(label)
        self.lookups.add()
        return self.registry.makeDurationHistogram(
            descriptor: Self.descriptor(name),
            labels: dimensions,
            buckets: Self.latenessBuckets
        )
    }

    func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { self.registry.unregisterCounter(counter) }
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { self.registry.unregisterCounter(counter) }
    }

    func destroyRecorder(_ handler: any RecorderHandler) {
        if let gauge = handler as? Prometheus.Gauge { self.registry.unregisterGauge(gauge) }
        if let histogram = handler as? ValueHistogram { self.registry.unregisterValueHistogram(histogram) }
    }

    func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { self.registry.unregisterGauge(gauge) }
    }

    func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { self.registry.unregisterDurationHistogram(histogram) }
    }
}

/// A count that any thread may add to (`RunwayPrometheusFactory.lookups`).
final class LookupCount: Sendable {
    private let value = Atomic<Int>(0)

    func add() { self.value.add(1, ordering: .relaxed) }

    /// The calls counted so far.
    var count: Int { self.value.load(ordering: .relaxed) }
}
