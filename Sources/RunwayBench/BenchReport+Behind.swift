import Foundation

/// When a side of `runway bench` fell behind its own plan: what makes its lateness a backlog rather than a
/// measure of its timers, so that its figures, and any ratio made of them, are not the plan's.
///
/// A side fell behind when a finisher's end (Runway) or cancel (swift-nio) request reached its loop at or after
/// the app's expiration warning, or, in a comparison, when more than `allowedPercent` of one kind of its events came
/// later than `nanoseconds` (Decision 279). Threading: values.
extension BenchReport {
    /// The lateness bound of a comparison, and the last run's events beyond it per side and kind.
    package struct LateBound: Codable, Sendable {
        /// 100 ms: about a hundred times Runway's p99 and more than a hundred times the loop's timer slack on the
        /// project's 2-core machine. A deadline served that late was not delayed by a timer or a wake-up but by
        /// work queued ahead of it on a busy loop.
        package static let boundNanoseconds: UInt64 = 100_000_000
        /// 1%: a thread descheduled once on a shared machine delays a few events; a loop that fell behind delays
        /// every event queued behind the backlog.
        package static let allowedShare = 0.01

        package var nanoseconds = LateBound.boundNanoseconds
        package var allowedPercent = LateBound.allowedShare * 100
        /// Per figure prefix (`runway.expirationWarnings`, `nio.terminations`...): the events later than the bound.
        package var beyond: [String: Int]

        package init(runway: RunwayRunResult, nio: NIORunResult) {
            self.beyond = Dictionary(
                uniqueKeysWithValues: Self.kinds(runway: runway, nio: nio).map { kind in
                    (kind.key, kind.statistics.count(laterThan: Self.boundNanoseconds))
                }
            )
        }

        /// The kinds of event a comparison holds to the bound: Runway's three and swift-nio's two, with the side's
        /// name for a sentence, the kind's name and the report's key.
        static func kinds(
            runway: RunwayRunResult,
            nio: NIORunResult
        ) -> [(side: String, name: String, key: String, statistics: LatenessStatistics)] {
            [
                ("Runway", "expiration warnings", "runway.expirationWarnings", runway.events.warnings),
                ("Runway", "suspensions", "runway.suspensions", runway.events.suspensions),
                ("Runway", "terminations", "runway.terminations", runway.events.terminations),
                ("swift-nio", "expiration warnings", "nio.expirationWarnings", nio.events.warnings),
                ("swift-nio", "terminations", "nio.terminations", nio.events.terminations),
            ]
        }
    }

    /// Why a run's sides fell behind their plan, one sentence each; the lateness bound applies only with a peer.
    static func behindPlan(in run: BenchRun) -> [String] {
        var sentences: [String] = []
        if run.runway.ends.afterWarning > 0 {
            sentences.append(
                "\(run.runway.ends.afterWarning) finishers' end requests reached the loop after their warning: "
                    + "the bench fell behind its plan (machine too busy?), so its counts are not the plan's"
            )
        }
        guard let nio = run.nio else { return sentences }
        if nio.requestsAfterWarning > 0 {
            sentences.append(
                "swift-nio: \(grouped(nio.requestsAfterWarning)) finishers' cancel requests reached its loop after "
                    + "their warning: swift-nio fell behind its own plan (its loop was busy), so its lateness is a "
                    + "backlog"
            )
        }
        let bound = LateBound.boundNanoseconds
        for kind in LateBound.kinds(runway: run.runway, nio: nio) {
            let beyond = kind.statistics.count(laterThan: bound)
            let observed = kind.statistics.count
            guard observed > 0, Double(beyond) > Double(observed) * LateBound.allowedShare else { continue }
            let share = Double(beyond) / Double(observed) * 100
            sentences.append(
                "\(kind.side): \(grouped(beyond)) of \(grouped(observed)) \(kind.name) (\(Self.percent(share))) "
                    + "more than \(bound / 1_000_000) ms late, the bound: \(kind.side) fell behind its own plan "
                    + "(more than \(Self.percent(LateBound.allowedShare * 100)) of a kind beyond the bound), so its "
                    + "lateness is a backlog"
            )
        }
        return sentences
    }

    /// `12.5%`, `1%`.
    private static func percent(_ value: Double) -> String {
        value.rounded() == value ? "\(Int(value))%" : String(format: "%.1f%%", value)
    }
}
