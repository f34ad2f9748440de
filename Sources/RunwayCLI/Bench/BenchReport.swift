import RunwayCore

/// The result of `runway bench`, as printed by `--json`. Every field is documented in README.md ("`runway
/// bench`"); `schemaVersion` changes when a field is removed or changes meaning (adding one does not).
struct BenchReport: Codable, Sendable {
    static let currentSchemaVersion = 1

    var schemaVersion = BenchReport.currentSchemaVersion
    /// The `runway` that made the report (`RunwayVersion.string`, as `runway --version` prints it).
    var version = RunwayVersion.string
    var configuration: Configuration
    var plan: Plan
    var runway: RunwaySection
    /// Only with `--compare nio`.
    var nio: NIOSection?
    /// swift-nio ÷ Runway per quantile, only with `--compare nio`.
    var ratios: Ratios?
    var passed: Bool
    var failures: [String]

    struct Configuration: Codable, Sendable {
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
