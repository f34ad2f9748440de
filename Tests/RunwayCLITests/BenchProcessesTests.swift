import Foundation
@_spi(Processes) import RunwayCore
import Testing

@testable import RunwayBench
@testable import RunwayCLI

#if canImport(Glibc)
import Glibc
#endif

/// `runway bench --processes` on a tiny plan of real child processes (`runway bench-child`): 6 apps x 3
/// tasks, budget 1 s, so that one run takes about two seconds. Counts, schema, refusals and exit codes; never
/// timings. Serialized: one bench's children at a time (the machine is shared, and one test checks that none is
/// left).
///
/// With seed 2 and end fraction 0.4 the plan (Sources/RunwayBench/ProcessBenchPlan.swift) has 3 finishers and
/// 3 overrunners, one of each role: suspended at the deadline, exits on suspend (SIGTERM), and ignores SIGTERM
/// (SIGKILL).
@Suite(.serialized) struct BenchProcessesTests {
    static func tinyWorkload(seed: Int = 2, budget: String = "1") -> [String] {
        [
            "bench", "--processes", "--apps", "6", "--tasks-per-app", "3", "--budget", budget, "--warning-lead", "0.4",
            "--duration", "0.1", "--end-fraction", "0.4", "--seed", "\(seed)",
        ]
    }

    static let kinds = ["expirationWarnings", "suspensionsAfterEnd", "suspensionsAtDeadline", "terminations", "kills"]

    static func report(_ result: RunResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any], "\(result)")
    }

    @Test func theCountsAreTheSeededPlansExactlyAndEveryKindHasLateness() throws {
        let result = try RunwayBinary.run(Self.tinyWorkload() + ["--json", "--suspension", "signal"])
        try #require(result.status == 0, "\(result)")
        #expect(result.stderr == BenchTrustTests.debugBuildStandardError, "\(result)")
        let report = try Self.report(result)
        #expect(ProcessBenchSchema.problems(in: report) == [])
        #expect(report["passed"] as? Bool == true)
        #expect(report["buildType"] as? String == (BenchTrustTests.isDebugBuild ? "debug" : "release"))

        let plan = try #require(report["plan"] as? [String: Any])
        #expect(plan["finisherApps"] as? Int == 3)
        #expect(plan["suspendedOverrunnerApps"] as? Int == 1)
        #expect(plan["exitingOverrunnerApps"] as? Int == 1)
        #expect(plan["killedOverrunnerApps"] as? Int == 1)
        #expect(plan["events"] as? Int == 3 * 3 + 6)
        let processes = try #require(report["processes"] as? [String: Any])
        #expect(processes["suspensionMechanism"] as? String == "signal")
        // Each overrunner is warned once per task; each finisher and suspended overrunner is stopped once; the two
        // that exit on suspend are reaped once, one ended by SIGTERM and one by SIGKILL.
        let expected = [
            "expirationWarnings": 9, "suspensionsAfterEnd": 3, "suspensionsAtDeadline": 1, "terminations": 1,
            "kills": 1,
        ]
        for kind in Self.kinds {
            let events = try #require(processes[kind] as? [String: Any], "\(kind)")
            #expect(events["expected"] as? Int == expected[kind], "\(kind): \(events)")
            #expect(events["count"] as? Int == expected[kind], "\(kind): \(events)")
            for problem in ["early", "lost", "unexpected"] {
                #expect(events[problem] as? Int == 0, "\(kind) \(problem): \(events)")
            }
            let lateness = try #require(events["latenessNanoseconds"] as? [String: Any], "\(kind): \(events)")
            let p50 = try #require(lateness["p50"] as? Int, "\(kind)")
            let max = try #require(lateness["max"] as? Int, "\(kind)")
            #expect(p50 >= 0 && p50 <= max, "\(kind): \(lateness)")
        }
        #expect(pgrepBenchChildren() == [], "every child is gone once the bench returns")
    }

    @Test func theTableSaysPassedAndADebugBuildWarns() throws {
        let result = try RunwayBinary.run(Self.tinyWorkload())
        try #require(result.status == 0, "\(result)")
        #expect(result.stderr == BenchTrustTests.debugBuildStandardError, "\(result)")
        for row in ["expiration warnings", "stopped after end", "stopped at deadline", "SIGTERM, reaped"] {
            #expect(result.stdoutLines.contains { $0.hasPrefix(row) }, "\(row): \(result)")
        }
        #expect(result.stdoutLines.contains { $0.hasPrefix("build: ") && $0.contains(", commit ") })
        let warnings = result.stdoutLines.filter { $0 == BenchEnvironment.debugWarning }
        #expect(warnings.count == (BenchTrustTests.isDebugBuild ? 2 : 0), "\(result)")
        #expect(result.stdoutLines.last == "result: passed (every planned event seen exactly once, none early)")
    }

    @Test func runsGiveTheSpreadAndABaselineWithImpossiblyGoodFiguresExitsTwo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // 10 tasks a child: enough warnings a run for `--baseline` to judge their p50 (10 beyond it).
        var workload = Self.tinyWorkload(seed: 5)
        workload[try #require(workload.firstIndex(of: "--tasks-per-app")) + 1] = "10"
        let first = try RunwayBinary.run(workload + ["--json", "--runs", "5"])
        try #require(first.status == 0, "\(first)")
        var report = try Self.report(first)
        #expect(report["runs"] as? Int == 5)
        let figures = try #require(report["figures"] as? [[String: Any]])
        let names = figures.compactMap { $0["name"] as? String }
        for kind in Self.kinds { #expect(names.contains("processes.\(kind).p50"), "\(names)") }
        for figure in figures {
            let (low, middle, high) = (figure["min"] as? Double, figure["median"] as? Double, figure["max"] as? Double)
            #expect(low ?? 1 <= middle ?? 0 && middle ?? 1 <= high ?? 0, "\(figure)")
            #expect(figure["runs"] as? Int == 5, "\(figure)")
        }

        // Lateness of 1 ns everywhere: every compared figure is worse now.
        report["figures"] = figures.map { figure -> [String: Any] in
            var figure = figure
            for key in ["median", "min", "max"] { figure[key] = 1.0 }
            figure["values"] = [1.0, 1.0, 1.0, 1.0, 1.0]
            return figure
        }
        let impossible = folder.appendingPathComponent("impossible.json")
        try JSONSerialization.data(withJSONObject: report).write(to: impossible)
        let regressed = try RunwayBinary.run(workload + ["--baseline", impossible.path, "--runs", "5"])
        #expect(regressed.status == 2, "\(regressed)")
        #expect(
            regressed.stderr.contains(
                "bench regressed against \(impossible.path): processes.expirationWarnings.p50: "
            ),
            "\(regressed)"
        )
        #expect(regressed.stdoutLines.contains { $0.hasPrefix("REGRESSED: processes.expirationWarnings.p50: ") })
        #expect(regressed.stdoutLines.last?.hasPrefix("result: REGRESSED (") == true, "\(regressed)")
    }

    @Test func aBaselineOfEmbeddedAppsIsRefusedBeforeTheRun() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        // The start of a `runway bench --json` report: no `workload`.
        try Data(#"{"schemaVersion": 1, "passed": true}"#.utf8).write(to: file)
        let result = try RunwayBinary.run(Self.tinyWorkload() + ["--baseline", file.path])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("a report of `runway bench` (embedded apps)"), "\(result)")
        #expect(result.stdout.isEmpty, "refused before the run: \(result)")
    }

    @Test func compareNioIsRefusedWithProcesses() throws {
        let result = try RunwayBinary.run(["bench", "--processes", "--compare", "nio"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("--compare nio cannot be used with --processes"), "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: [
        (["--apps", "201"], "--apps with --processes must be 1 to 200"),
        (["--tasks-per-app", "101"], "ProtocolLineRateLimit"),
        (["--plot", "x.svg"], "--plot cannot be used with --processes"),
    ])
    func limitsAreNamedInTheError(arguments: [String], message: String) throws {
        let result = try RunwayBinary.run(["bench", "--processes"] + arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
    }

    /// B6: with every overrunner in the killed role (its own OverrunPolicy terminate, SIGTERM ignored), each is
    /// reaped once, ended by SIGKILL, and none early: the kill is measured from the budget deadline itself.
    @Test func everyOverrunnerKilledAtItsDeadlineIsReapedOnceBySIGKILL() throws {
        let result = try RunwayBinary.run(
            Self.tinyWorkload() + ["--json", "--suspension", "signal", "--overrunners", "killed"]
        )
        try #require(result.status == 0, "\(result)")
        let report = try Self.report(result)
        #expect(ProcessBenchSchema.problems(in: report) == [])
        let configuration = try #require(report["configuration"] as? [String: Any])
        #expect(configuration["overrunners"] as? String == "killed")
        let plan = try #require(report["plan"] as? [String: Any])
        #expect(plan["killedOverrunnerApps"] as? Int == 3)
        #expect(plan["suspendedOverrunnerApps"] as? Int == 0)
        #expect(plan["exitingOverrunnerApps"] as? Int == 0)
        let processes = try #require(report["processes"] as? [String: Any])
        let kills = try #require(processes["kills"] as? [String: Any])
        #expect(kills["expected"] as? Int == 3, "\(kills)")
        #expect(kills["count"] as? Int == 3, "\(kills)")
        for problem in ["early", "lost", "unexpected"] { #expect(kills[problem] as? Int == 0, "\(problem): \(kills)") }
        #expect(pgrepBenchChildren() == [], "every child is gone once the bench returns")
    }

    @Test func suspensionNeedsProcesses() throws {
        let result = try RunwayBinary.run(["bench", "--suspension", "signal"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("--suspension needs --processes"), "\(result)")
        let roles = try RunwayBinary.run(["bench", "--overrunners", "killed"])
        #expect(roles.status == 64, "\(roles)")
        #expect(roles.stderr.contains("--overrunners needs --processes"), "\(roles)")
    }

    @Test func readmeDocumentsEveryField() throws {
        let readme = try String(
            contentsOf: RunwayBinary.repositoryRoot().appendingPathComponent("Docs/Benchmarking.md"),
            encoding: .utf8
        )
        // The fields shared with the embedded-apps report are documented in "`runway bench`", the others in its
        // subsection "`runway bench --processes`".
        let bench = try #require(readme.components(separatedBy: "## `runway bench`").dropFirst().first)
        let section = try #require(readme.components(separatedBy: "### `runway bench --processes`").dropFirst().first)
        for name in ProcessBenchSchema.fieldNames {
            let text = BenchSchema.fieldNames.contains(name) ? bench : section
            let documented = ["`\(name)`", "`\(name).", ".\(name)`"].contains { text.contains($0) }
            #expect(documented, "Benchmarking.md's runway bench --processes section does not document `\(name)`")
        }
    }

    /// An interrupted bench leaves no child behind (a stopped child would never be resumed): SIGINT once a
    /// finisher has been stopped by SIGSTOP (state T) makes the bench terminate every child, the stopped one
    /// included, and exit 130.
    @Test func anInterruptedBenchTerminatesItsStoppedChildren() throws {
        let process = Process()
        process.executableURL = try RunwayBinary.executable()
        process.arguments = Self.tinyWorkload(budget: "20") + ["--suspension", "signal"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var stopped = false
        for _ in 0..<300 where !stopped {
            usleep(100_000)
            stopped = self.benchChildStates().contains("T")
        }
        #expect(stopped, "a finisher was stopped within 30 s")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + SIGINT)
        usleep(200_000)
        #expect(pgrepBenchChildren() == [], "no child outlives an interrupted bench")
    }

    /// The states (`/proc/PID/stat` field 3) of the live `runway bench-child` processes.
    private func benchChildStates() -> [String] {
        self.pgrepBenchChildren().compactMap { pid in
            (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))
                .flatMap { $0.split(separator: ")").last?.split(separator: " ").first.map(String.init) }
        }
    }

    /// This build's `runway` with its symbolic links resolved, as its bench children's first argument names it
    /// (the bench starts them by `/proc/self/exe`): other checkouts' benches on the same machine are not ours.
    private static let executablePath = (try? RunwayBinary.executable().resolvingSymlinksInPath().path) ?? "runway"

    /// The pids of this build's `runway bench-child` processes still alive (zombies excluded).
    private func pgrepBenchChildren() -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
                command.hasPrefix(Self.executablePath + "\u{0}bench-child"),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let state = stat.split(separator: ")").last?.split(separator: " ").first
            else { return false }
            return state != "Z"
        }
    }
}
