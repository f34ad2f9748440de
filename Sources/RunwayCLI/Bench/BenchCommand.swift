import ArgumentParser
import Foundation
import RunwayBench
import RunwayBuildInfo
@_spi(Driver) @_spi(Processes) @_spi(Benchmarks) import RunwayCore
@_spi(Benchmarks) import RunwayLoop
@_spi(Processes) import RunwayProcesses

/// `runway bench`: a synthetic background-task workload on the real loop, with lateness histograms.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure how late expiration warnings, suspensions and terminations are, on the real loop.",
        discussion: """
            Runs a RunwayScheduler in this process with --apps embedded apps. Each app is launched, begins \
            --tasks-per-app background tasks, and enters the background; the apps enter it evenly spread over \
            --duration. A seeded share of the apps (--end-fraction) end all their tasks before the expiration \
            warning and are suspended; the others ignore the warning: every task's expiration handler runs at \
            deadline - lead and the app is terminated for overrun at its deadline (entry + budget). \
            The same --seed gives the same apps, tasks and counts.

            Reported per kind of event (expiration warnings, suspensions, terminations): how many were \
            expected and observed, early, lost and unexpected, the lateness p50/p90/p99/p99.9/max (HdrHistogram, \
            microseconds), and the rate; then setup and end-call throughput, peak RSS and bytes per outstanding \
            task, and how busy the loop was (libuv idle time). Warning lateness is read on the loop thread inside \
            the handler; a termination's is the transition's instant; a suspension's is measured from the moment \
            the bench asked the loop to end the app's tasks (one request; the ends run on the loop thread).

            --compare nio then runs the same deadlines on swift-nio's scheduleTask(deadline:) in this process \
            and prints NIO / Runway per quantile. --plot FILE.svg writes a lateness-by-percentile chart.

            --realtime-priority P runs the loop thread at SCHED_FIFO priority P (and swift-nio's loop thread too, \
            with --compare nio), so that no normal thread delays a woken loop. It needs CAP_SYS_NICE or \
            `ulimit -r` of at least P; when refused, the run goes on at the normal policy and the report says why \
            (line "loop thread:").

            --wakeup-spin US arms Runway's loop timer US microseconds before each deadline and spins on the \
            clock for the rest: deadlines are served about that much less late, for up to that much CPU per \
            wake-up. swift-nio has no equivalent; its half is unchanged.

            Every report names the version, the commit (the one this runway was built from, as `runway \
            --version` prints it; `unknown` for a build without git), the build type, the host (cores, kernel, \
            cgroup mode) and the date. \
            A debug build prints a warning on standard error and in the report: its timings are not \
            representative (build with `swift build -c release`).

            --runs N repeats the whole workload N times and reports each figure's median, minimum and maximum \
            over the runs (the spread); the sections show the last run. --baseline FILE.json compares Runway's \
            figures with a previous --json report of the same workload and build type, made with --runs 5 or \
            more (it records every run; a regular file of at most 16 MiB); --runs is then 5 unless given (at \
            least 5: two sets of 5 runs of the same binary lie wholly apart by chance 1 in 252 per figure, so a \
            rerun of the same binary regresses by chance at most 4% over the 10 figures the default plan judges; \
            the report prints this bound). A baseline made by another version of runway is compared, with a \
            warning naming both. A lateness quantile (p50, \
            p90, p99), rate or bytes-per-task figure regresses only when its median is worse by more than \
            --threshold (default 10%) AND its spread lies wholly on the worse side of the baseline's (every run \
            worse than every baseline run); a worse median whose spreads overlap is noise, shown as \
            `overlapping`. A quantile is judged only when at least 10 of a run's planned events lie beyond it (a \
            p99 needs 1,000). Both spreads are printed for every judged figure; each regression is named on \
            standard error (swift-nio's figures are shown, not judged).

            With --compare nio, the ratios are printed only when every run of both sides served every planned \
            event exactly once and none early, and neither side fell behind its own plan: a finisher's end (or \
            cancel) request reaching its loop after the app's warning, or more than 1% of one kind of event \
            more than 100 ms late (the late bound, printed with the events beyond it: a deadline that late was \
            held up by a backlog on a busy loop, not by its timer). Otherwise the ratios are withheld, the \
            result is FAILED naming the side and why, and the run fails.

            --processes runs the same seeded plan on real child processes instead (see "Child processes" below).

            Exit codes: 0 passed; 1 an event fired early, was lost, repeated or not in the plan (on either side), \
            or a call failed; 2 a figure regressed against --baseline; 3 a side fell behind its own plan (and \
            nothing else failed); 64 bad usage, or a --baseline file that cannot be compared. Timings depend on \
            the machine; only the counts are reproducible.

            Child processes (--processes): each app is a child process, `runway bench-child` (this executable), \
            that speaks the app protocol (Docs/AppProtocol.md), under OverrunPolicy suspend and a termination grace \
            of 0.5 s. --apps defaults to 20 there (at most 200) and --tasks-per-app to 10 (at most 100). Each child \
            begins its tasks while active; the finishers end them before the warning and are suspended; the \
            overrunners ignore the warning and take three roles in turn: suspended at the deadline, exits on \
            suspend (UIApplicationExitsOnSuspend: willTerminate, then SIGTERM ends it), and killed (its own \
            OverrunPolicy terminate; it ignores SIGTERM, and gets SIGKILL at the deadline, B6). --overrunners killed \
            gives every overrunner the killed role. Reported per kind: warning lateness (deadline - lead to the \
            line written to the app), suspension-confirmed lateness (the last end, or the deadline, to the kernel \
            showing the app stopped or frozen, checked every 1 ms), and reap lateness (the deadline to the child \
            reaped), with every event's expected and seen counts. --suspension \
            auto|signal|freezer picks the mechanism (default auto). --runs, --baseline and --threshold work as \
            above (a baseline must be a --processes report); --compare, --plot, --realtime-priority and \
            --wakeup-spin are refused.
            """
    )

    @Option(
        help: ArgumentHelp(
            "Embedded apps in the scheduler (default 1000), or child processes with --processes (default 20).",
            valueName: "n"
        )
    )
    var apps: Int?

    @Option(
        help: ArgumentHelp("Background tasks each app begins (default 100; 10 with --processes).", valueName: "m")
    )
    var tasksPerApp: Int?

    @Option(help: ArgumentHelp("Each app's background budget (BackgroundTimeBudget).", valueName: "seconds"))
    var budget = 2.0

    @Option(help: ArgumentHelp("Expiration warning lead (ExpirationWarningLead).", valueName: "seconds"))
    var warningLead = 0.5

    @Option(help: ArgumentHelp("Share of apps whose tasks all end before the warning, 0 to 1.", valueName: "f"))
    var endFraction = 0.5

    @Option(help: ArgumentHelp("Window over which the apps enter the background, evenly spaced.", valueName: "seconds"))
    var duration = 1.0

    @Option(
        help: ArgumentHelp("Seed of the generator that picks which apps end their tasks, and when.", valueName: "n")
    )
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Also run the same deadlines on a peer and print the ratios.", valueName: "peer"))
    var compare: Peer?

    @Option(help: ArgumentHelp("Write a lateness-by-percentile chart (SVG) to this file.", valueName: "file.svg"))
    var plot: String?

    @Option(
        help: ArgumentHelp(
            "Run the loop thread (and swift-nio's, with --compare) at SCHED_FIFO priority p, 1 to 99.",
            valueName: "p"
        )
    )
    var realtimePriority: Int32?

    @Option(
        help: ArgumentHelp(
            "Arm Runway's loop timer this many microseconds early and spin to each deadline, 0 to 1000.",
            valueName: "us"
        )
    )
    var wakeupSpin = 0

    @Option(
        help: ArgumentHelp(
            "Run the whole workload this many times and report the spread, 1 to 100 (default 1; 5 with --baseline).",
            valueName: "n"
        )
    )
    var runs: Int?

    @Option(
        help: ArgumentHelp(
            "Compare the figures with a previous --json report of the same workload; exit 2 on a regression.",
            valueName: "file.json"
        )
    )
    var baseline: String?

    // Unconditional: `-5` is the option's value (refused with the range), not a missing value and an unknown option.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --baseline: how much worse a figure may be before it regresses, more than 0 to 1000% (default 10%).",
            valueName: "percent"
        ),
        transform: BenchThreshold.parse
    )
    var threshold: BenchThreshold?

    /// `--threshold` when not given: 10%, what Benchmarks/README.md calls noise on the project's shared machine.
    static let defaultThreshold = BenchThreshold(percent: 10)

    @Flag(help: "Print the report as JSON (schema in Docs/Benchmarking.md) instead of a table.")
    var json = false

    @Flag(help: "Run the plan on real child processes that speak the app protocol (see below).")
    var processes = false

    @Option(help: ArgumentHelp("With --processes: how apps are suspended (SuspensionMechanism).", valueName: "how"))
    var suspension: BenchSuspension?

    @Option(
        help: ArgumentHelp(
            "With --processes: the overrunners' roles, mixed (three in turn) or killed (SIGKILL at the deadline).",
            valueName: "roles"
        )
    )
    var overrunners: BenchOverrunners?

    /// `--runs`, or its default: 5 with `--baseline` (a distribution to compare), else 1.
    var runCount: Int {
        self.runs ?? (self.baseline != nil ? BenchBaseline<BenchReport.Configuration>.defaultRuns : 1)
    }

    enum Peer: String, ExpressibleByArgument, CaseIterable {
        case nio
    }

    func validate() throws {
        if self.processes {
            try self.validateProcesses()
        } else {
            if self.suspension != nil { throw ValidationError("--suspension needs --processes") }
            if self.overrunners != nil { throw ValidationError("--overrunners needs --processes") }
            guard (1...100_000).contains(self.appCount) else { throw ValidationError("--apps must be 1 to 100000") }
            guard (1...10_000).contains(self.taskCount) else {
                throw ValidationError("--tasks-per-app must be 1 to 10000")
            }
        }
        guard self.appCount * self.taskCount <= 10_000_000 else {
            throw ValidationError("--apps x --tasks-per-app must be at most 10000000")
        }
        guard self.budget.isFinite, self.budget > 0, self.budget <= 3_600 else {
            throw ValidationError("--budget must be more than 0 and at most 3600 seconds")
        }
        guard self.warningLead.isFinite, self.warningLead >= 0, self.warningLead <= 3_600 else {
            throw ValidationError("--warning-lead must be 0 to 3600 seconds")
        }
        guard (0...1).contains(self.endFraction) else { throw ValidationError("--end-fraction must be 0 to 1") }
        guard self.endFraction == 0 || self.warningLead < self.budget else {
            throw ValidationError(
                "--end-fraction above 0 needs --warning-lead shorter than --budget (time to end tasks)"
            )
        }
        guard self.duration.isFinite, self.duration >= 0, self.duration <= 3_600 else {
            throw ValidationError("--duration must be 0 to 3600 seconds")
        }
        let priorities = LoopLimits.realtimePriorities
        if let priority = self.realtimePriority, !priorities.contains(priority) {
            throw ValidationError(
                "--realtime-priority must be \(priorities.lowerBound) to \(priorities.upperBound)"
                    + " (a SCHED_FIFO priority)"
            )
        }
        let maximumSpin = LoopLimits.maximumWakeupSpin.nanoseconds / 1_000
        guard (0...maximumSpin).contains(Int64(self.wakeupSpin)) else {
            throw ValidationError("--wakeup-spin must be 0 to \(maximumSpin) microseconds")
        }
        guard (1...100).contains(self.runCount) else { throw ValidationError("--runs must be 1 to 100") }
        if self.baseline != nil, self.runCount < BenchBaseline<BenchReport.Configuration>.minimumRuns {
            throw ValidationError(
                "--baseline needs --runs of at least \(BenchBaseline<BenchReport.Configuration>.minimumRuns): with "
                    + "fewer, two sets of runs of the same binary lie wholly apart by chance too often (1 in 20 per "
                    + "figure for 3 and 3)"
            )
        }
        if self.baseline == nil, self.threshold != nil {
            throw ValidationError("--threshold needs --baseline FILE.json")
        }
        if let plot = self.plot {
            guard plot.lowercased().hasSuffix(".svg") else {
                throw ValidationError("--plot writes SVG: the file name must end in .svg")
            }
            if let problem = Self.plotDestinationProblem(plot) { throw ValidationError(problem) }
        }
    }

    func run() async throws {
        if self.processes { return try await self.runProcesses() }
        let plan = BenchPlan(
            BenchConfiguration(
                apps: self.appCount,
                tasksPerApp: self.taskCount,
                budget: TimeSpan.seconds(self.budget) ?? .zero,
                warningLead: TimeSpan.seconds(self.warningLead) ?? .zero,
                endFraction: self.endFraction,
                duration: TimeSpan.seconds(self.duration) ?? .zero,
                seed: self.seed,
                realtimePriority: self.realtimePriority,
                wakeupSpinMicroseconds: self.wakeupSpin
            )
        )
        let environment = BenchEnvironment.current(commit: RunwayBuildInfo.current.commit)
        if environment.isDebugBuild { printError(BenchEnvironment.debugWarning) }
        let baseline = try self.loadBaseline(
            matching: BenchReport.Configuration(plan.configuration),
            environment: environment
        )
        let progress = ProgressBar.forStandardError()
        var runs: [BenchRun] = []
        for _ in 0..<self.runCount {
            let runway = try await RunwayWorkload(plan: plan, progress: progress).run()
            let nio = self.compare == .nio ? try await NIOWorkload(plan: plan, progress: progress).run() : nil
            runs.append(BenchRun(runway: runway, nio: nio))
        }
        var report = BenchReport(plan: plan, runs: runs, environment: environment)
        report.baseline = baseline?.compare(
            report.figures,
            runs: report.runs,
            thresholdPercent: (self.threshold ?? Self.defaultThreshold).percent
        )
        try self.printReport(report, table: report.table)
        if let plot = self.plot, let last = runs.last {
            try Self.writePlot(to: plot, plan: plan, runway: last.runway, nio: last.nio)
        }
        try self.exitWithReportStatus(report)
    }
}
