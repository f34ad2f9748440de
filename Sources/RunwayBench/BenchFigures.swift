/// One figure of `runway bench` across its `--runs`: the median, minimum and maximum of the runs' values. The
/// report's `figures` list, and what `--baseline` compares.
///
/// Threading: a value.
package struct BenchFigure: Codable, Sendable, Equatable {
    /// A key path into the report, `runway.expirationWarnings.p99` (lateness quantiles, in nanoseconds),
    /// `runway.setup.beginCallsPerSecond`, `nio.terminations.p50`...
    package var name: String
    /// `ns`, `calls/s` or `B`.
    package var unit: String
    /// True for lateness and bytes, false for rates.
    package var lowerIsBetter: Bool
    /// How many runs had this figure (a quantile is absent from a run that observed no event of its kind).
    package var runs: Int
    package var median: Double
    package var min: Double
    package var max: Double
    /// Every run's value, in run order: what a later `--baseline` comparison reads as this side's spread. Absent
    /// from reports made before it was recorded.
    package var values: [Double]?

    /// For a lateness quantile: how many events of its kind each run expected (the plan's count); nil otherwise.
    package var events: Int?

    /// True when `--baseline` judges this figure: Runway's (`runway.`, and `processes.` of `runway bench --processes`;
    /// swift-nio's are the peer's, shown for context), and not the p99.9 or the maximum, which rest on one or a few
    /// samples and swing by several times from run to run on a shared machine. For the same reason a p50, p90 or p99
    /// is judged only when at least 10 of a run's events lie beyond it (`tailEventsMinimum`): a p99 needs 1,000
    /// events, a p50 20; a p99 of 20 events is their maximum.
    package var isCompared: Bool {
        guard self.name.hasPrefix("runway.") || self.name.hasPrefix("processes.") else { return false }
        let quantile = self.name.split(separator: ".").last.map(String.init) ?? ""
        if quantile == "p99_9" || quantile == "max" { return false }
        guard let tail = Self.judgedQuantileTails[quantile], let events = self.events else { return true }
        return Double(events) * tail >= Self.tailEventsMinimum
    }

    /// The share of a run's events beyond each judged quantile.
    static let judgedQuantileTails = ["p50": 0.5, "p90": 0.1, "p99": 0.01]
    /// The fewest events beyond a quantile for `--baseline` to judge it.
    static let tailEventsMinimum = 10.0

    /// One run's value of one figure.
    package struct Sample: Sendable {
        package var name: String
        package var unit: String
        package var lowerIsBetter: Bool
        package var value: Double
        /// For a lateness quantile: the events of its kind the run expected.
        package var events: Int? = nil
    }

    /// The figures of one run's sections, in report order.
    package static func samples(runway: BenchReport.RunwaySection, nio: BenchReport.NIOSection?) -> [Sample] {
        var samples: [Sample] = []
        func lateness(_ prefix: String, _ events: BenchReport.Events) {
            guard let quantiles = events.latenessNanoseconds else { return }
            let names = ["p50", "p90", "p99", "p99_9", "max"]
            for (name, value) in zip(names, quantiles.values) {
                samples.append(
                    Sample(
                        name: "\(prefix).\(name)",
                        unit: "ns",
                        lowerIsBetter: true,
                        value: Double(value),
                        events: events.expected
                    )
                )
            }
        }
        lateness("runway.expirationWarnings", runway.expirationWarnings)
        lateness("runway.suspensions", runway.suspensions)
        lateness("runway.terminations", runway.terminations)
        if let rate = runway.setup.beginCallsPerSecond {
            samples.append(
                Sample(name: "runway.setup.beginCallsPerSecond", unit: "calls/s", lowerIsBetter: false, value: rate)
            )
        }
        if let rate = runway.ends.callsPerSecond {
            samples.append(
                Sample(name: "runway.ends.callsPerSecond", unit: "calls/s", lowerIsBetter: false, value: rate)
            )
        }
        if let bytes = runway.memory.bytesPerOutstandingTask {
            samples.append(
                Sample(name: "runway.memory.bytesPerOutstandingTask", unit: "B", lowerIsBetter: true, value: bytes)
            )
        }
        if let nio {
            lateness("nio.expirationWarnings", nio.expirationWarnings)
            lateness("nio.terminations", nio.terminations)
        }
        return samples
    }

    /// The spread of each figure over `runs` (each run's samples), in the order the figures first appear.
    package static func spread(_ runs: [[Sample]]) -> [BenchFigure] {
        var order: [String] = []
        var values: [String: (sample: Sample, values: [Double])] = [:]
        for run in runs {
            for sample in run {
                if values[sample.name] == nil {
                    order.append(sample.name)
                    values[sample.name] = (sample, [])
                }
                values[sample.name]?.values.append(sample.value)
            }
        }
        return order.compactMap { name in
            guard let (sample, list) = values[name], let low = list.min(), let high = list.max() else { return nil }
            return BenchFigure(
                name: name,
                unit: sample.unit,
                lowerIsBetter: sample.lowerIsBetter,
                runs: list.count,
                median: Self.median(list),
                min: low,
                max: high,
                values: list,
                events: sample.events
            )
        }
    }

    /// The middle value, or the mean of the two middle values for an even count. `values` is not empty.
    package static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
