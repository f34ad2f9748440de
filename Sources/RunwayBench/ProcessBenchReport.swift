@_spi(Processes) import RunwayCore

/// The result of `runway bench --processes`, as printed by `--json`: the same metadata, `figures`, `baseline`,
/// `passed` and `failures` as `BenchReport`, with `workload: "processes"` and a `processes` section instead of
/// `runway`. Every field is documented in Docs/Benchmarking.md ("`runway bench --processes`"). Threading: a value.
package struct ProcessBenchReport: Codable, Sendable {
    package var schemaVersion = BenchReport.currentSchemaVersion
    /// `processes`: what tells this report from an embedded-app `BenchReport` (which has no `workload`).
    package var workload = ProcessBenchReport.workloadName
    package var version: String
    package var commit: String
    package var buildType: String
    package var date: String
    package var host: BenchEnvironment.Host
    package var configuration: Configuration
    package var plan: Plan
    package var runs: Int
    /// The last run's figures and counts.
    package var processes: Section
    /// Every figure's median, minimum and maximum over the runs.
    package var figures: [BenchFigure]
    package var baseline: BenchReport.BaselineComparison?
    package var passed: Bool
    package var failures: [String]

    package static let workloadName = "processes"

    package struct Configuration: Codable, Sendable, Equatable {
        package var apps: Int
        package var tasksPerApp: Int
        package var budgetSeconds: Double
        package var warningLeadSeconds: Double
        package var endFraction: Double
        package var durationSeconds: Double
        package var seed: UInt64
        /// `--suspension`: `auto`, `signal` or `freezer`.
        package var suspension: String
        /// `--overrunners`: `mixed` or `killed`.
        package var overrunners: String
        package var terminationGraceSeconds: Double
    }

    package struct Plan: Codable, Sendable {
        package var finisherApps: Int
        package var suspendedOverrunnerApps: Int
        package var exitingOverrunnerApps: Int
        package var killedOverrunnerApps: Int
        package var tasks: Int
        package var tasksEndingBeforeWarning: Int
        /// `expirationWarnings` + one suspension or termination per app.
        package var events: Int
    }

    package struct Section: Codable, Sendable {
        /// What the apps got: `signal`, `freezer` (and why not the freezer, for `auto`).
        package var suspensionMechanism: String
        package var expirationWarnings: BenchReport.Events
        package var suspensionsAfterEnd: BenchReport.Events
        package var suspensionsAtDeadline: BenchReport.Events
        package var terminations: BenchReport.Events
        package var kills: BenchReport.Events
        package var setup: Setup
        package var homeErrors: Int
        package var deadlinePhaseSeconds: Double
        package var finished: Bool
        package var loop: Loop
    }

    package struct Setup: Codable, Sendable {
        /// Launching every child until each had begun its tasks.
        package var seconds: Double
        package var tasksBegun: Int
    }

    package struct Loop: Codable, Sendable {
        package var setup: LoopUtilisation?
        package var deadlines: LoopUtilisation?
    }
}

extension ProcessBenchReport {
    /// The report of `runs` (at least one) of `plan`: the last run's section, every figure's spread over the runs,
    /// and the failures of every run, which make `runway bench --processes` exit 1.
    package init(plan: ProcessBenchPlan, runs: [ProcessRunResult], environment: BenchEnvironment) {
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
        let (figures, failures) = Self.gather(runs) { run in
            (BenchFigure.samples(processes: Section(run)), Self.failures(of: run))
        }
        self.processes = Section(runs[runs.count - 1])
        self.figures = figures
        self.failures = failures
        self.passed = failures.isEmpty
    }

    /// Everything that makes a run fail: an event early, lost or unexpected (repeated, or not of the plan's kind),
    /// a refused `home`, or giving up.
    package static func failures(of run: ProcessRunResult) -> [String] {
        var failures: [String] = []
        for (_, name, statistics) in Section(run).kinds {
            failures += Self.eventFailures(
                name,
                early: statistics.early,
                lost: statistics.lost,
                unexpected: statistics.unexpected,
                unexpectedMeaning: "repeated or not in the plan"
            )
        }
        if run.homeErrors > 0 { failures.append("\(run.homeErrors) home commands refused") }
        return failures
    }
}

extension ProcessBenchReport.Configuration {
    package init(_ plan: ProcessBenchPlan) {
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
    package init(_ run: ProcessRunResult) {
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
    package var kinds: [(key: String, name: String, events: BenchReport.Events)] {
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
    package static func samples(processes section: ProcessBenchReport.Section) -> [Sample] {
        var samples: [Sample] = []
        for (key, _, events) in section.kinds {
            guard let quantiles = events.latenessNanoseconds else { continue }
            for (name, value) in zip(["p50", "p90", "p99", "p99_9", "max"], quantiles.values) {
                samples.append(
                    Sample(
                        name: "processes.\(key).\(name)",
                        unit: "ns",
                        lowerIsBetter: true,
                        value: Double(value),
                        events: events.expected
                    )
                )
            }
        }
        return samples
    }
}
