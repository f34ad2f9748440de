/// One run of the workload: Runway's half and, with `--compare nio`, swift-nio's.
package struct BenchRun: Sendable {
    package var runway: RunwayRunResult
    package var nio: NIORunResult?

    package init(runway: RunwayRunResult, nio: NIORunResult?) {
        self.runway = runway
        self.nio = nio
    }
}

extension BenchReport {
    /// The report of `runs` (at least one) of `plan`: the last run's sections, every figure's spread over the
    /// runs, and the failures of every run, which make `runway bench` exit 1 (3 when a side only fell behind its
    /// plan) and withhold the ratios.
    package init(plan: BenchPlan, runs: [BenchRun], environment: BenchEnvironment) {
        precondition(!runs.isEmpty, "a report needs at least one run")
        let configuration = plan.configuration
        self.version = environment.version
        self.commit = environment.commit
        self.buildType = environment.buildType
        self.date = environment.date
        self.host = environment.host
        self.configuration = Configuration(configuration)
        self.plan = Plan(
            finisherApps: plan.finisherCount,
            overrunnerApps: plan.overrunnerCount,
            tasks: plan.taskCount,
            tasksEndingBeforeWarning: plan.finisherCount * configuration.tasksPerApp
        )
        self.runs = runs.count
        let (figures, failures) = Self.gather(runs) { run in
            let samples = BenchFigure.samples(runway: RunwaySection(run.runway), nio: run.nio.map(NIOSection.init))
            let failures = Self.failures(of: run.runway) + (run.nio.map(Self.failures(ofNIO:)) ?? [])
            return (samples, failures + Self.behindPlan(in: run))
        }
        self.fellBehind = runs.enumerated().flatMap { index, run in
            let prefix = runs.count > 1 ? "run \(index + 1) of \(runs.count): " : ""
            return Self.behindPlan(in: run).map { prefix + $0 }
        }
        let last = runs[runs.count - 1]
        self.runway = RunwaySection(last.runway)
        self.nio = last.nio.map(NIOSection.init)
        self.figures = figures
        self.failures = failures
        self.passed = failures.isEmpty
        if let nio = last.nio {
            self.lateBound = LateBound(runway: last.runway, nio: nio)
        }
        if runs.contains(where: { $0.nio != nil }) {
            if self.passed {
                self.ratios = Ratios(figures: self.figures)
            } else if self.fellBehind.count == failures.count {
                self.ratiosWithheld =
                    "a side fell behind its own plan (see failures): a ratio would compare a backlog with a timer"
            } else {
                self.ratiosWithheld =
                    "a run failed (see failures): ratios of lateness are meaningful only when both sides served "
                    + "every planned event exactly once and none early"
            }
        }
    }

    /// What makes swift-nio's half fail: an event early, lost (never observed: the half gave up waiting) or
    /// unexpected (repeated, or not in the plan).
    private static func failures(ofNIO nio: NIORunResult) -> [String] {
        let kinds = [("expiration warnings", nio.events.warnings), ("terminations", nio.events.terminations)]
        return kinds.flatMap { name, statistics in
            Self.eventFailures(
                name,
                early: statistics.early,
                lost: statistics.lost,
                unexpected: statistics.unexpected,
                unexpectedMeaning: "repeated or not in the plan",
                side: "swift-nio: "
            )
        }
    }

    /// Everything that makes the run fail: an event early, lost or unexpected, or a refused call.
    private static func failures(of runway: RunwayRunResult) -> [String] {
        var failures: [String] = []
        let kinds = [
            ("expiration warnings", runway.events.warnings), ("suspensions", runway.events.suspensions),
            ("terminations", runway.events.terminations),
        ]
        for (name, statistics) in kinds {
            failures += Self.eventFailures(
                name,
                early: statistics.early,
                lost: statistics.lost,
                unexpected: statistics.unexpected,
                unexpectedMeaning: "not in the plan"
            )
        }
        if runway.tasksRefused > 0 { failures.append("\(runway.tasksRefused) beginBackgroundTask calls refused") }
        if runway.ends.errors > 0 { failures.append("\(runway.ends.errors) endBackgroundTask calls failed") }
        if runway.homeErrors > 0 { failures.append("\(runway.homeErrors) home commands refused") }
        return failures
    }
}

extension BenchReport.Configuration {
    /// The options of a run as the report records them.
    package init(_ configuration: BenchConfiguration) {
        self.init(
            apps: configuration.apps,
            tasksPerApp: configuration.tasksPerApp,
            budgetSeconds: configuration.budget.seconds,
            warningLeadSeconds: configuration.warningLead.seconds,
            endFraction: configuration.endFraction,
            durationSeconds: configuration.duration.seconds,
            seed: configuration.seed,
            realtimePriority: configuration.realtimePriority,
            wakeupSpinMicroseconds: configuration.wakeupSpinMicroseconds > 0
                ? configuration.wakeupSpinMicroseconds : nil
        )
    }
}

extension BenchReport.RunwaySection {
    package init(_ runway: RunwayRunResult) {
        let before = runway.residentBeforeTasksBytes
        let with = runway.residentWithTasksBytes
        let outstanding = runway.tasksBegun
        let bytesPerTask = before.flatMap { before in
            with.map { outstanding > 0 ? (Double($0) - Double(before)) / Double(outstanding) : 0 }
        }
        self.init(
            expirationWarnings: BenchReport.Events(runway.events.warnings),
            suspensions: BenchReport.Events(runway.events.suspensions),
            terminations: BenchReport.Events(runway.events.terminations),
            setup: BenchReport.Setup(
                seconds: runway.setupSeconds,
                tasksBegun: runway.tasksBegun,
                tasksRefused: runway.tasksRefused,
                beginCallsPerSecond: rate(runway.tasksBegun, runway.beginSeconds)
            ),
            ends: BenchReport.Ends(
                calls: runway.ends.calls,
                errors: runway.ends.errors,
                callsPerSecond: rate(runway.ends.calls, Double(runway.ends.nanoseconds) / 1e9),
                requestsAfterWarning: runway.ends.afterWarning
            ),
            deadlinePhaseSeconds: runway.deadlineSeconds,
            finished: runway.finished,
            memory: BenchReport.Memory(
                peakResidentBytes: runway.peakResidentBytes,
                residentBeforeTasksBytes: before,
                residentWithTasksBytes: with,
                outstandingTasks: outstanding,
                bytesPerOutstandingTask: bytesPerTask
            ),
            loop: BenchReport.Loop(
                setup: runway.setupLoop,
                deadlines: runway.deadlineLoop,
                priority: "\(runway.loopPriority)"
            )
        )
    }
}

extension BenchReport.NIOSection {
    package init(_ nio: NIORunResult) {
        self.init(
            expirationWarnings: BenchReport.Events(nio.events.warnings),
            terminations: BenchReport.Events(nio.events.terminations),
            scheduledTasks: nio.scheduled,
            cancelledTasks: nio.cancelled,
            deadlinePhaseSeconds: nio.deadlineSeconds,
            finished: nio.finished,
            requestsAfterWarning: nio.requestsAfterWarning,
            loopPriority: "\(nio.loopPriority)"
        )
    }
}

extension BenchReport.Events {
    package init(_ statistics: LatenessStatistics) {
        self.expected = statistics.expected
        self.count = statistics.count
        self.early = statistics.early
        self.lost = statistics.lost
        self.unexpected = statistics.unexpected
        self.latenessNanoseconds = BenchReport.Quantiles(statistics)
        self.perSecond = statistics.perSecond
    }
}

extension BenchReport.Quantiles {
    /// The percentiles the report shows, in its order.
    package static let percentiles: [Double] = [50, 90, 99, 99.9, 100]

    package init?(_ statistics: LatenessStatistics) {
        let values = Self.percentiles.compactMap { statistics.nanoseconds(atPercentile: $0) }
        guard values.count == Self.percentiles.count else { return nil }
        self.init(p50: values[0], p90: values[1], p99: values[2], p99_9: values[3], max: values[4])
    }

    package var values: [UInt64] { [self.p50, self.p90, self.p99, self.p99_9, self.max] }
}

extension BenchReport.Ratios {
    /// swift-nio's median ÷ Runway's median per quantile, from the report's figures.
    package init(figures: [BenchFigure]) {
        let medians = Dictionary(figures.map { ($0.name, $0.median) }, uniquingKeysWith: { first, _ in first })
        func ratios(_ kind: String) -> BenchReport.QuantileRatios {
            let values = ["p50", "p90", "p99", "p99_9", "max"].map { quantile -> Double? in
                guard let theirs = medians["nio.\(kind).\(quantile)"],
                    let ours = medians["runway.\(kind).\(quantile)"], ours > 0
                else { return nil }
                return theirs / ours
            }
            return BenchReport.QuantileRatios(
                p50: values[0],
                p90: values[1],
                p99: values[2],
                p99_9: values[3],
                max: values[4]
            )
        }
        self.init(expirationWarnings: ratios("expirationWarnings"), terminations: ratios("terminations"))
    }
}

extension BenchReport.QuantileRatios {
    package var values: [Double?] { [self.p50, self.p90, self.p99, self.p99_9, self.max] }
}

/// `count / seconds`, nil when no time passed.
private func rate(_ count: Int, _ seconds: Double) -> Double? {
    seconds > 0 ? Double(count) / seconds : nil
}
