import RunwayCore

/// The result of `runway bench`, as printed by `--json`. Every field is documented in Docs/Benchmarking.md ("`runway
/// bench`"); `schemaVersion` changes when a field is removed or changes meaning (adding one does not).
package struct BenchReport: Codable, Sendable {
    package static let currentSchemaVersion = 1

    package var schemaVersion = BenchReport.currentSchemaVersion
    /// The `runway` that made the report (`RunwayVersion.string`, as `runway --version` prints it).
    package var version = RunwayVersion.string
    /// The commit the binary was built from (`BenchEnvironment.commit`).
    package var commit: String
    /// `debug` or `release`. A debug build's timings are not representative.
    package var buildType: String
    /// When the run started, ISO 8601 UTC.
    package var date: String
    package var host: BenchEnvironment.Host
    package var configuration: Configuration
    package var plan: Plan
    /// `--runs`: how many times the workload (both halves with `--compare nio`) ran.
    package var runs: Int
    /// The last run's figures and counts.
    package var runway: RunwaySection
    /// Only with `--compare nio`: the last run's.
    package var nio: NIOSection?
    /// swift-nio ÷ Runway per quantile of the medians over the runs, only with `--compare nio`, and only when every
    /// run passed (no side lost, repeated or fired early an event): a ratio over different events means nothing.
    package var ratios: Ratios?
    /// With `--compare nio` when `ratios` is absent: why.
    package var ratiosWithheld: String?
    /// Every figure's median, minimum and maximum over the runs.
    package var figures: [BenchFigure]
    /// Only with `--baseline`.
    package var baseline: BaselineComparison?
    /// Only with `--compare nio`: the lateness bound both sides are held to, and the last run's events beyond it.
    package var lateBound: LateBound?
    package var passed: Bool
    package var failures: [String]
    /// The sentences of `failures` that say a side fell behind its own plan; when they are all the failures, the
    /// exit status is 3, not 1.
    package var fellBehind: [String] = []

    /// The comparison with `--baseline FILE.json`: the figures worse than the baseline's by more than the threshold.
    package struct BaselineComparison: Codable, Sendable {
        package var file: String
        /// The baseline's `version`, `commit`, `date` and `runs`.
        package var version: String
        package var commit: String
        package var date: String
        package var runs: Int
        package var thresholdPercent: Double
        /// How many figures both reports had and were judged (`BenchFigure.isCompared`).
        package var compared: Int
        /// At most this chance, in percent, that a rerun of the baseline's binary shows a regression by chance
        /// (`BenchBaseline.falseAlarmPercent`).
        package var falseAlarmPercent: Double
        /// Every judged figure, with both spreads.
        package var figures: [ComparedFigure]
        /// The figures whose verdict is `regressed`.
        package var regressions: [Regression]
    }

    package struct Regression: Codable, Sendable {
        package var figure: String
        package var unit: String
        /// Medians.
        package var baseline: Double
        package var current: Double
        /// (current - baseline) / baseline, in percent: positive when the figure grew.
        package var changePercent: Double
        package var baselineSpread: Spread
        package var currentSpread: Spread
    }

    /// One figure over one side's runs: the median, minimum and maximum, and how many runs had it.
    package struct Spread: Codable, Sendable, Equatable {
        package var median: Double
        package var min: Double
        package var max: Double
        package var runs: Int

        package init(_ figure: BenchFigure) {
            self.median = figure.median
            self.min = figure.min
            self.max = figure.max
            self.runs = figure.runs
        }
    }

    /// One figure judged against `--baseline`.
    package struct ComparedFigure: Codable, Sendable {
        package var figure: String
        package var unit: String
        package var baselineSpread: Spread
        package var currentSpread: Spread
        /// (current - baseline) / baseline of the medians, in percent.
        package var changePercent: Double
        package var verdict: Verdict

        package enum Verdict: String, Codable, Sendable {
            /// The median is better, or worse by at most the threshold.
            case within
            /// The median is worse by more than the threshold, but the spreads overlap: noise, not judged.
            case overlapping
            /// The median is worse by more than the threshold and every run is worse than every baseline run.
            case regressed
        }
    }

    package struct Configuration: Codable, Sendable, Equatable {
        package var apps: Int
        package var tasksPerApp: Int
        package var budgetSeconds: Double
        package var warningLeadSeconds: Double
        package var endFraction: Double
        package var durationSeconds: Double
        package var seed: UInt64
        /// `--realtime-priority`; absent when not given.
        package var realtimePriority: Int32?
        /// `--wakeup-spin`; absent when not given.
        package var wakeupSpinMicroseconds: Int?
    }

    package struct Plan: Codable, Sendable {
        package var finisherApps: Int
        package var overrunnerApps: Int
        package var tasks: Int
        package var tasksEndingBeforeWarning: Int
    }

    /// One kind of event: counts, lateness quantiles and rate.
    package struct Events: Codable, Sendable {
        package var expected: Int
        package var count: Int
        package var early: Int
        package var lost: Int
        package var unexpected: Int
        /// Absent when nothing was observed.
        package var latenessNanoseconds: Quantiles?
        /// Absent for fewer than two events.
        package var perSecond: Double?
    }

    package struct Quantiles: Codable, Sendable {
        package var p50: UInt64
        package var p90: UInt64
        package var p99: UInt64
        package var p99_9: UInt64
        package var max: UInt64
    }

    package struct RunwaySection: Codable, Sendable {
        package var expirationWarnings: Events
        package var suspensions: Events
        package var terminations: Events
        package var setup: Setup
        package var ends: Ends
        package var deadlinePhaseSeconds: Double
        package var finished: Bool
        package var memory: Memory
        package var loop: Loop
    }

    package struct Setup: Codable, Sendable {
        package var seconds: Double
        package var tasksBegun: Int
        package var tasksRefused: Int
        package var beginCallsPerSecond: Double?
    }

    package struct Ends: Codable, Sendable {
        package var calls: Int
        package var errors: Int
        package var callsPerSecond: Double?
        package var requestsAfterWarning: Int
    }

    package struct Memory: Codable, Sendable {
        package var peakResidentBytes: UInt64?
        package var residentBeforeTasksBytes: UInt64?
        package var residentWithTasksBytes: UInt64?
        package var outstandingTasks: Int
        package var bytesPerOutstandingTask: Double?
    }

    package struct Loop: Codable, Sendable {
        package var setup: LoopUtilisation?
        package var deadlines: LoopUtilisation?
        /// The loop thread's scheduling policy, or why the asked one was refused.
        package var priority: String
    }

    package struct NIOSection: Codable, Sendable {
        package var expirationWarnings: Events
        package var terminations: Events
        package var scheduledTasks: Int
        package var cancelledTasks: Int
        package var deadlinePhaseSeconds: Double
        package var finished: Bool
        /// Finishers whose cancel request reached NIO's loop after their warning (must be 0).
        package var requestsAfterWarning: Int
        /// NIO's loop thread's scheduling policy, or why the asked one was refused.
        package var loopPriority: String
    }

    package struct Ratios: Codable, Sendable {
        package var expirationWarnings: QuantileRatios
        package var terminations: QuantileRatios
    }

    /// Each absent when either side has no sample or Runway's is zero.
    package struct QuantileRatios: Codable, Sendable {
        package var p50: Double?
        package var p90: Double?
        package var p99: Double?
        package var p99_9: Double?
        package var max: Double?
    }
}
