import Histogram
import RunwayCore

/// Lateness of one kind of event (expiration warnings, suspensions or terminations) in one run: each expected
/// event is compared with when it was observed.
///
/// - An event observed before its expected instant is *early*: it is counted, not put in the histogram (a
///   deadline must never fire early, Behaviour.md B9).
/// - An expected event never observed is *lost*; an event the plan did not expect (a warning for a task that
///   was to end, a second warning for one task, a suspension of an overrunner) is *unexpected*.
/// - Lateness goes into an HdrHistogram in nanoseconds, 3 significant digits (quantiles are exact to 0.1%),
///   up to 10 minutes; the maximum is also kept exactly.
package struct LatenessStatistics: Sendable {
    package static let highestTrackableNanoseconds: UInt64 = 600_000_000_000

    private(set) var expected = 0
    private(set) var count = 0
    private(set) var early = 0
    private(set) var unexpected = 0
    private(set) var histogram = Histogram<UInt64>(
        highestTrackableValue: LatenessStatistics.highestTrackableNanoseconds,
        numberOfSignificantValueDigits: .three
    )
    private(set) var maxNanoseconds: UInt64 = 0
    private(set) var firstObserved: Instant?
    private(set) var lastObserved: Instant?

    package var lost: Int { self.expected - self.count }

    /// One expected event, at `expectedAt`, observed at `observed` (nil: never).
    package mutating func add(expectedAt: Instant, observed: Instant?) {
        self.expected += 1
        guard let observed else { return }
        self.count += 1
        self.firstObserved = min(self.firstObserved ?? observed, observed)
        self.lastObserved = max(self.lastObserved ?? observed, observed)
        guard observed >= expectedAt else {
            self.early += 1
            return
        }
        let lateness = UInt64((observed - expectedAt).nanoseconds)
        self.maxNanoseconds = max(self.maxNanoseconds, lateness)
        _ = self.histogram.record(min(lateness, Self.highestTrackableNanoseconds))
    }

    /// Events the plan did not expect.
    package mutating func addUnexpected(_ events: Int) {
        self.unexpected += events
    }

    /// Nanoseconds at `percentile` (0...100), or nil when nothing was recorded.
    package func nanoseconds(atPercentile percentile: Double) -> UInt64? {
        guard self.histogram.totalCount > 0 else { return nil }
        return percentile >= 100 ? self.maxNanoseconds : self.histogram.valueAtPercentile(percentile)
    }

    /// Observed events per second between the first and the last one of this kind; nil for fewer than two.
    package var perSecond: Double? {
        guard self.count > 1, let first = self.firstObserved, let last = self.lastObserved, last > first else {
            return nil
        }
        return Double(self.count - 1) / (last - first).seconds
    }

    /// Events observed more than `nanoseconds` late, at the histogram's precision (0.1%).
    package func count(laterThan nanoseconds: UInt64) -> Int {
        guard nanoseconds < Self.highestTrackableNanoseconds else { return 0 }
        return Int(self.histogram.count(within: (nanoseconds + 1)...Self.highestTrackableNanoseconds))
    }

    /// True when nothing was early, lost or unexpected.
    package var isClean: Bool { self.early == 0 && self.lost == 0 && self.unexpected == 0 }
}
