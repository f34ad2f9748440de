import RunwayCore

/// The result of `runway bench`, as printed by `--json`. Every field is documented in README.md ("`runway
/// bench`"); `schemaVersion` changes when a field is removed or changes meaning (adding one does not).
struct BenchReport: Codable, Sendable {
    static let currentSchemaVersion = 1

    var schemaVersion = BenchReport.currentSchemaVersion
    /// The `runway` that made the report (`RunwayVersion.string`, as `runway --version` prints it).
    var version = RunwayVersion.string
    /// The commit of the checkout the binary ran from, `-dirty` when tracked files differed, or `unknown`
    /// (`BenchEnvironment.commit(nearExecutable:)`).
    var commit: String
    /// `debug` or `release`. A debug build's timings are not representative.
    var buildType: String
    /// When the run started, ISO 8601 UTC.
    var date: String
    var host: BenchEnvironment.Host
    var configuration: Configuration
    var plan: Plan
    /// `--runs`: how many times the workload (both halves with `--compare nio`) ran.
    var runs: Int
    /// The last run's figures and counts.
    var runway: RunwaySection
    /// Only with `--compare nio`: the last run's.
    var nio: NIOSection?
    /// swift-nio ÷ Runway per quantile of the medians over the runs, only with `--compare nio`, and only when every
    /// run passed (no side lost, repeated or fired early an event): a ratio over different events means nothing.
    var ratios: Ratios?
    /// With `--compare nio` when `ratios` is absent: why.
    var ratiosWithheld: String?
    /// Every figure's median, minimum and maximum over the runs.
    var figures: [BenchFigure]
    /// Only with `--baseline`.
    var baseline: BaselineComparison?
    var passed: Bool
    var failures: [String]

    /// The comparison with `--baseline FILE.json`: the figures worse than the baseline's by more than the threshold.
    struct BaselineComparison: Codable, Sendable {
        var file: String
        /// The baseline's `commit` and `date`.
        var commit: String
        var date: String
        var thresholdPercent: Double
        /// How many figures both reports had and were judged (`BenchFigure.isCompared`).
        var compared: Int
        var regressions: [Regression]
    }

    struct Regression: Codable, Sendable {
        var figure: String
        var unit: String
        /// Medians.
        var baseline: Double
        var current: Double
        /// (current - baseline) / baseline, in percent: positive when the figure grew.
        var changePercent: Double
    }

    struct Configuration: Codable, Sendable, Equatable {
        var apps: Int
        var tasksPerApp: Int
        var budgetSeconds: Double
        var warningLeadSeconds: Double
        var endFraction: Double
        var durationSeconds: Double
        var seed: UInt64
        /// `--realtime-priority`; absent when not given.
        var realtimePriority: Int32?
        /// `--wakeup-spin`; absent when not given.
        var wakeupSpinMicroseconds: Int?
    }

    struct Plan: Codable, Sendable {
        var finisherApps: Int
        var overrunnerApps: Int
        var tasks: Int
        var tasksEndingBeforeWarning: Int
    }

    /// One kind of event: counts, lateness quantiles and rate.
    struct Events: Codable, Sendable {
        var expected: Int
        var count: Int
        var early: Int
        var lost: Int
        var unexpected: Int
        /// Absent when nothing was observed.
        var latenessNanoseconds: Quantiles?
        /// Absent for fewer than two events.
        var perSecond: Double?
    }

    struct Quantiles: Codable, Sendable {
        var p50: UInt64
        var p90: UInt64
        var p99: UInt64
        var p99_9: UInt64
        var max: UInt64
    }

    struct RunwaySection: Codable, Sendable {
        var expirationWarnings: Events
        var suspensions: Events
        var terminations: Events
        var setup: Setup
        var ends: Ends
        var deadlinePhaseSeconds: Double
        var finished: Bool
        var memory: Memory
        var loop: Loop
    }

    struct Setup: Codable, Sendable {
        var seconds: Double
        var tasksBegun: Int
        var tasksRefused: Int
        var beginCallsPerSecond: Double?
    }

    struct Ends: Codable, Sendable {
        var calls: Int
        var errors: Int
        var callsPerSecond: Double?
        var requestsAfterWarning: Int
    }

    struct Memory: Codable, Sendable {
        var peakResidentBytes: UInt64?
        var residentBeforeTasksBytes: UInt64?
        var residentWithTasksBytes: UInt64?
        var outstandingTasks: Int
        var bytesPerOutstandingTask: Double?
    }

    struct Loop: Codable, Sendable {
        var setup: LoopUtilisation?
        var deadlines: LoopUtilisation?
        /// The loop thread's scheduling policy, or why the asked one was refused.
        var priority: String
    }

    struct NIOSection: Codable, Sendable {
        var expirationWarnings: Events
        var terminations: Events
        var scheduledTasks: Int
        var cancelledTasks: Int
        var deadlinePhaseSeconds: Double
        var finished: Bool
        /// NIO's loop thread's scheduling policy, or why the asked one was refused.
        var loopPriority: String
    }

    struct Ratios: Codable, Sendable {
        var expirationWarnings: QuantileRatios
        var terminations: QuantileRatios
    }

    /// Each absent when either side has no sample or Runway's is zero.
    struct QuantileRatios: Codable, Sendable {
        var p50: Double?
        var p90: Double?
        var p99: Double?
        var p99_9: Double?
        var max: Double?
    }
}
