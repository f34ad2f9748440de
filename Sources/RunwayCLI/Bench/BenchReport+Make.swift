extension BenchReport {
    /// The report of a run: the figures, and the failures that make `runway bench` exit 1.
    init(plan: BenchPlan, runway: RunwayRunResult, nio: NIORunResult?) {
        let configuration = plan.configuration
        self.configuration = Configuration(
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
        self.plan = Plan(
            finisherApps: plan.finisherCount,
            overrunnerApps: plan.overrunnerCount,
            tasks: plan.taskCount,
            tasksEndingBeforeWarning: plan.finisherCount * configuration.tasksPerApp
        )
        let before = runway.residentBeforeTasksBytes
        let with = runway.residentWithTasksBytes
        let outstanding = runway.tasksBegun
        let bytesPerTask = before.flatMap { before in
            with.map { outstanding > 0 ? (Double($0) - Double(before)) / Double(outstanding) : 0 }
        }
        self.runway = RunwaySection(
            expirationWarnings: Events(runway.events.warnings),
            suspensions: Events(runway.events.suspensions),
            terminations: Events(runway.events.terminations),
            setup: Setup(
                seconds: runway.setupSeconds,
                tasksBegun: runway.tasksBegun,
                tasksRefused: runway.tasksRefused,
                beginCallsPerSecond: rate(runway.tasksBegun, runway.beginSeconds)
            ),
            ends: Ends(
                calls: runway.ends.calls,
                errors: runway.ends.errors,
                callsPerSecond: rate(runway.ends.calls, Double(runway.ends.nanoseconds) / 1e9),
                requestsAfterWarning: runway.ends.afterWarning
            ),
            deadlinePhaseSeconds: runway.deadlineSeconds,
            finished: runway.finished,
            memory: Memory(
                peakResidentBytes: runway.peakResidentBytes,
                residentBeforeTasksBytes: before,
                residentWithTasksBytes: with,
                outstandingTasks: outstanding,
                bytesPerOutstandingTask: bytesPerTask
            ),
            loop: Loop(setup: runway.setupLoop, deadlines: runway.deadlineLoop, priority: "\(runway.loopPriority)")
        )
        if let nio {
            self.nio = NIOSection(
                expirationWarnings: Events(nio.events.warnings),
                terminations: Events(nio.events.terminations),
                scheduledTasks: nio.scheduled,
                cancelledTasks: nio.cancelled,
                deadlinePhaseSeconds: nio.deadlineSeconds,
                finished: nio.finished,
                loopPriority: "\(nio.loopPriority)"
            )
            self.ratios = Ratios(
                expirationWarnings: QuantileRatios(nio: nio.events.warnings, runway: runway.events.warnings),
                terminations: QuantileRatios(nio: nio.events.terminations, runway: runway.events.terminations)
            )
        }
        self.failures = Self.failures(of: runway)
        self.passed = self.failures.isEmpty
    }

    /// Everything that makes the run fail: an event early, lost or unexpected, or a refused call.
    private static func failures(of runway: RunwayRunResult) -> [String] {
        var failures: [String] = []
        let kinds = [
            ("expiration warnings", runway.events.warnings), ("suspensions", runway.events.suspensions),
            ("terminations", runway.events.terminations),
        ]
        for (name, statistics) in kinds {
            if statistics.early > 0 { failures.append("\(statistics.early) \(name) earlier than expected") }
            if statistics.lost > 0 { failures.append("\(statistics.lost) \(name) lost (expected, never observed)") }
            if statistics.unexpected > 0 { failures.append("\(statistics.unexpected) \(name) not in the plan") }
        }
        if runway.tasksRefused > 0 { failures.append("\(runway.tasksRefused) beginBackgroundTask calls refused") }
        if runway.ends.errors > 0 { failures.append("\(runway.ends.errors) endBackgroundTask calls failed") }
        if runway.ends.afterWarning > 0 {
            failures.append(
                "\(runway.ends.afterWarning) finishers' end requests reached the loop after their warning: "
                    + "the bench fell behind its plan (machine too busy?), so its counts are not the plan's"
            )
        }
        if runway.homeErrors > 0 { failures.append("\(runway.homeErrors) home commands refused") }
        return failures
    }
}

extension BenchReport.Events {
    init(_ statistics: LatenessStatistics) {
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
    static let percentiles: [Double] = [50, 90, 99, 99.9, 100]

    init?(_ statistics: LatenessStatistics) {
        let values = Self.percentiles.compactMap { statistics.nanoseconds(atPercentile: $0) }
        guard values.count == Self.percentiles.count else { return nil }
        self.init(p50: values[0], p90: values[1], p99: values[2], p99_9: values[3], max: values[4])
    }

    var values: [UInt64] { [self.p50, self.p90, self.p99, self.p99_9, self.max] }
}

extension BenchReport.QuantileRatios {
    init(nio: LatenessStatistics, runway: LatenessStatistics) {
        let ratios = BenchReport.Quantiles.percentiles.map { percentile -> Double? in
            guard let theirs = nio.nanoseconds(atPercentile: percentile),
                let ours = runway.nanoseconds(atPercentile: percentile), ours > 0
            else { return nil }
            return Double(theirs) / Double(ours)
        }
        self.init(p50: ratios[0], p90: ratios[1], p99: ratios[2], p99_9: ratios[3], max: ratios[4])
    }

    var values: [Double?] { [self.p50, self.p90, self.p99, self.p99_9, self.max] }
}

/// `count / seconds`, nil when no time passed.
private func rate(_ count: Int, _ seconds: Double) -> Double? {
    seconds > 0 ? Double(count) / seconds : nil
}
