import RunwayCore

/// The result of `runway bench --processes`, as printed by `--json`: the same metadata, `figures`, `baseline`,
/// `passed` and `failures` as `BenchReport`, with `workload: "processes"` and a `processes` section instead of
/// `runway`. Every field is documented in README.md ("`runway bench --processes`"). Threading: a value.
struct ProcessBenchReport: Codable, Sendable {
    var schemaVersion = BenchReport.currentSchemaVersion
    /// `processes`: what tells this report from an embedded-app `BenchReport` (which has no `workload`).
    var workload = ProcessBenchReport.workloadName
    var version: String
    var commit: String
    var buildType: String
    var date: String
    var host: BenchEnvironment.Host
    var configuration: Configuration
    var plan: Plan
    var runs: Int
    /// The last run's figures and counts.
    var processes: Section
    /// Every figure's median, minimum and maximum over the runs.
    var figures: [BenchFigure]
    var baseline: BenchReport.BaselineComparison?
    var passed: Bool
    var failures: [String]

    static let workloadName = "processes"

    struct Configuration: Codable, Sendable, Equatable {
        var apps: Int
        var tasksPerApp: Int
        var budgetSeconds: Double
        var warningLeadSeconds: Double
        var endFraction: Double
        var durationSeconds: Double
        var seed: UInt64
        /// `--suspension`: `auto`, `signal` or `freezer`.
        var suspension: String
        /// `--overrunners`: `mixed` or `killed`.
        var overrunners: String
        var terminationGraceSeconds: Double
    }

    struct Plan: Codable, Sendable {
        var finisherApps: Int
        var suspendedOverrunnerApps: Int
        var exitingOverrunnerApps: Int
        var killedOverrunnerApps: Int
        var tasks: Int
        var tasksEndingBeforeWarning: Int
        /// `expirationWarnings` + one suspension or termination per app.
        var events: Int
    }

    struct Section: Codable, Sendable {
        /// What the apps got: `signal`, `freezer` (and why not the freezer, for `auto`).
        var suspensionMechanism: String
        var expirationWarnings: BenchReport.Events
        var suspensionsAfterEnd: BenchReport.Events
        var suspensionsAtDeadline: BenchReport.Events
        var terminations: BenchReport.Events
        var kills: BenchReport.Events
        var setup: Setup
        var homeErrors: Int
        var deadlinePhaseSeconds: Double
        var finished: Bool
        var loop: Loop
    }

    struct Setup: Codable, Sendable {
        /// Launching every child until each had begun its tasks.
        var seconds: Double
        var tasksBegun: Int
    }

    struct Loop: Codable, Sendable {
        var setup: LoopUtilisation?
        var deadlines: LoopUtilisation?
    }
}

extension ProcessBenchReport {
    /// The report of `runs` (at least one) of `plan`: the last run's section, every figure's spread over the runs,
    /// and the failures of every run, which make `runway bench --processes` exit 1.
    init(plan: ProcessBenchPlan, runs: [ProcessRunResult], environment: BenchEnvironment) {
        precondition(!runs.isEmpty, "a report needs at least one run")
        let configuration = plan.configuration
        self.version = environment.version
        self.commit = environment.commit
        self.buildType = environment.buildType
        self.date = environment.date
        self.host = environment.host
        self.configuration = Configuration(plan)
        self.plan = Plan(
            finisherApps: plan.count(.finisher),
            suspendedOverrunnerApps: plan.count(.suspended),
            exitingOverrunnerApps: plan.count(.exits),
            killedOverrunnerApps: plan.count(.killed),
            tasks: plan.plan.taskCount,
            tasksEndingBeforeWarning: plan.count(.finisher) * configuration.tasksPerApp,
            events: plan.expectedEvents
        )
        self.runs = runs.count
        var samples: [[BenchFigure.Sample]] = []
        var failures: [String] = []
        for (index, run) in runs.enumerated() {
            let section = Section(run)
            samples.append(BenchFigure.samples(processes: section))
            let prefix = runs.count > 1 ? "run \(index + 1) of \(runs.count): " : ""
            failures += Self.failures(of: run).map { prefix + $0 }
        }
        self.processes = Section(runs[runs.count - 1])
        self.figures = BenchFigure.spread(samples)
        self.failures = failures
        self.passed = failures.isEmpty
    }

    /// Everything that makes a run fail: an event early, lost or unexpected (repeated, or not of the plan's kind),
    /// a refused `home`, or giving up.
    static func failures(of run: ProcessRunResult) -> [String] {
        var failures: [String] = []
        for (_, name, statistics) in Section(run).kinds {
            if statistics.early > 0 { failures.append("\(statistics.early) \(name) earlier than expected") }
            if statistics.lost > 0 { failures.append("\(statistics.lost) \(name) lost (expected, never observed)") }
            if statistics.unexpected > 0 {
                failures.append("\(statistics.unexpected) \(name) repeated or not in the plan")
            }
        }
        if run.homeErrors > 0 { failures.append("\(run.homeErrors) home commands refused") }
        return failures
    }
}

extension ProcessBenchReport.Configuration {
    init(_ plan: ProcessBenchPlan) {
        let configuration = plan.configuration
        self.init(
            apps: configuration.apps,
            tasksPerApp: configuration.tasksPerApp,
            budgetSeconds: configuration.budget.seconds,
            warningLeadSeconds: configuration.warningLead.seconds,
            endFraction: configuration.endFraction,
            durationSeconds: configuration.duration.seconds,
            seed: configuration.seed,
            suspension: plan.suspension.rawValue,
            overrunners: plan.overrunners.rawValue,
            terminationGraceSeconds: plan.terminationGrace.seconds
        )
    }
}

extension ProcessBenchReport.Section {
    init(_ run: ProcessRunResult) {
        let events = run.events
        self.init(
            suspensionMechanism: run.mechanism,
            expirationWarnings: BenchReport.Events(events.expirationWarnings),
            suspensionsAfterEnd: BenchReport.Events(events.suspensionsAfterEnd),
            suspensionsAtDeadline: BenchReport.Events(events.suspensionsAtDeadline),
            terminations: BenchReport.Events(events.terminations),
            kills: BenchReport.Events(events.kills),
            setup: ProcessBenchReport.Setup(seconds: run.setupSeconds, tasksBegun: run.tasksBegun),
            homeErrors: run.homeErrors,
            deadlinePhaseSeconds: run.deadlineSeconds,
            finished: run.finished,
            loop: ProcessBenchReport.Loop(setup: run.setupLoop, deadlines: run.deadlineLoop)
        )
    }

    /// The kinds in report order: JSON key, table name, events.
    var kinds: [(key: String, name: String, events: BenchReport.Events)] {
        [
            ("expirationWarnings", "expiration warnings", self.expirationWarnings),
            ("suspensionsAfterEnd", "stopped after end", self.suspensionsAfterEnd),
            ("suspensionsAtDeadline", "stopped at deadline", self.suspensionsAtDeadline),
            ("terminations", "SIGTERM, reaped", self.terminations),
            ("kills", "SIGKILL, reaped", self.kills),
        ]
    }
}

extension BenchFigure {
    /// The lateness quantiles of one run of `runway bench --processes`, named `processes.<kind>.<quantile>`.
    static func samples(processes section: ProcessBenchReport.Section) -> [Sample] {
        var samples: [Sample] = []
        for (key, _, events) in section.kinds {
            guard let quantiles = events.latenessNanoseconds else { continue }
            for (name, value) in zip(["p50", "p90", "p99", "p99_9", "max"], quantiles.values) {
                samples.append(
                    Sample(name: "processes.\(key).\(name)", unit: "ns", lowerIsBetter: true, value: Double(value))
                )
            }
        }
        return samples
    }
}
