import ArgumentParser
import Foundation
import RunwayBench
import RunwayBuildInfo
@_spi(Processes) import RunwayCore

extension BenchSuspension: ExpressibleByArgument {}
extension BenchOverrunners: ExpressibleByArgument {}

extension BenchThreshold {
    /// `--threshold`'s value, or an error that ArgumentParser prints after the value and the option's name.
    static func parse(_ argument: String) throws -> BenchThreshold {
        guard let threshold = BenchThreshold(argument: argument) else { throw Invalid() }
        return threshold
    }

    struct Invalid: Error, CustomStringConvertible {
        var description: String { "expected a percentage more than 0 and at most 1000, as 10% or 10" }
    }
}

extension BenchCommand {
    /// `--processes`: the most child processes (`--apps`) and tasks per child (`--tasks-per-app`), and the defaults.
    /// Each app is a process of its own (about 10 MB of memory and a spawn each); each task costs a few protocol
    /// lines, and the daemon ends a child that sends more than `ProtocolLineRateLimit` (1,000) lines a second.
    static let processAppLimit = 200
    static let processTaskLimit = 100
    static let defaultProcessApps = 20
    static let defaultProcessTasks = 10

    /// `--apps`, or its default for the mode.
    var appCount: Int { self.apps ?? (self.processes ? Self.defaultProcessApps : 1_000) }

    /// `--tasks-per-app`, or its default for the mode.
    var taskCount: Int { self.tasksPerApp ?? (self.processes ? Self.defaultProcessTasks : 100) }

    /// The limits and refusals of `--processes`; each error names the option and the limit.
    func validateProcesses() throws {
        if self.compare != nil {
            throw ValidationError(
                "--compare nio cannot be used with --processes: swift-nio has no child processes to suspend or "
                    + "kill, so there is nothing to compare; run `runway bench --compare nio` without --processes"
            )
        }
        for (given, name) in [
            (self.plot != nil, "--plot"), (self.realtimePriority != nil, "--realtime-priority"),
            (self.wakeupSpin != 0, "--wakeup-spin"),
        ] where given {
            throw ValidationError("\(name) cannot be used with --processes (embedded apps only)")
        }
        guard (1...Self.processAppLimit).contains(self.appCount) else {
            throw ValidationError(
                "--apps with --processes must be 1 to \(Self.processAppLimit) (each app is a child process; the "
                    + "limit of `runway bench --processes`)"
            )
        }
        guard (1...Self.processTaskLimit).contains(self.taskCount) else {
            throw ValidationError(
                "--tasks-per-app with --processes must be 1 to \(Self.processTaskLimit) (each task is a few "
                    + "protocol lines, and a child may send at most 1000 a second: ProtocolLineRateLimit)"
            )
        }
    }

    /// `runway bench --processes`: runs the plan on child processes `--runs` times and prints the report.
    func runProcesses() async throws {
        let plan = ProcessBenchPlan(
            BenchPlan(
                BenchConfiguration(
                    apps: self.appCount,
                    tasksPerApp: self.taskCount,
                    budget: TimeSpan.seconds(self.budget) ?? .zero,
                    warningLead: TimeSpan.seconds(self.warningLead) ?? .zero,
                    endFraction: self.endFraction,
                    duration: TimeSpan.seconds(self.duration) ?? .zero,
                    seed: self.seed
                )
            ),
            suspension: self.suspension ?? .auto,
            overrunners: self.overrunners ?? .mixed
        )
        let environment = BenchEnvironment.current(commit: RunwayBuildInfo.current.commit)
        if environment.isDebugBuild { printError(BenchEnvironment.debugWarning) }
        let baseline = try self.loadBaseline(matching: ProcessBenchReport.Configuration(plan), environment: environment)
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            printError("bench failed: cannot read /proc/self/exe, the path of this runway, which the children run")
            throw ExitCode.failure
        }
        let progress = ProgressBar.forStandardError()
        var runs: [ProcessRunResult] = []
        for _ in 0..<self.runCount {
            do {
                runs.append(try await ProcessWorkload(plan: plan, executable: executable, progress: progress).run())
            } catch let error as ProcessBenchError {
                progress?.finish()
                printError("bench failed: \(error)")
                throw ExitCode.failure
            }
        }
        var report = ProcessBenchReport(plan: plan, runs: runs, environment: environment)
        report.baseline = baseline?.compare(
            report.figures,
            runs: report.runs,
            thresholdPercent: (self.threshold ?? Self.defaultThreshold).percent
        )
        try self.printReport(report, table: report.table)
        try self.exitWithReportStatus(report)
    }
}
