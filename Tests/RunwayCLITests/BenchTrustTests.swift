import Foundation
import RunwayBuildInfo
import RunwayCore
import Testing

@testable import RunwayBench
@testable import RunwayCLI

/// A bench users can trust: a debug build says so, every report names its making (version, commit,
/// build type, host, date), ratios are refused when a side lost an event, `--runs` reports the spread, and
/// `--baseline` exits 2 naming the figure that regressed. Counts and exit codes only, never timings.
///
/// Serialized: `ratiosAreRefusedWhenSwiftNIOLostAnEvent` runs a real workload in this process, whose embedded apps
/// answer on the cooperative thread pool, while the other tests block pool threads waiting for `runway bench`
/// children; with as many pool threads as cores (2 here) the workload's apps miss their deadlines and the run fails.
@Suite(.serialized) struct BenchTrustTests {
    /// True when this test binary, and so the `runway` built beside it, is a debug build.
    static var isDebugBuild: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    /// 40 apps x 10 tasks, budget 0.4 s: about 20 suspensions and terminations and 200 warnings a run, so that
    /// `--baseline` judges their p50 (and the warnings' p90), and a quantile is not one or two events' lateness.
    static func judgedWorkload(seed: Int) -> [String] {
        [
            "bench", "--apps", "40", "--tasks-per-app", "10", "--budget", "0.4", "--warning-lead", "0.1",
            "--duration", "0.1", "--seed", "\(seed)",
        ]
    }

    /// What `runway bench` prints on standard error when all goes well and standard error is not a terminal.
    static var debugBuildStandardError: String {
        Self.isDebugBuild ? BenchEnvironment.debugWarning + "\n" : ""
    }

    @Test func aDebugBuildWarnsOnStandardErrorAndTheReportNamesItsMaking() throws {
        let result = try RunwayBinary.run(BenchCommandTests.tinyWorkload(seed: 11) + ["--json"])
        try #require(result.status == 0, "\(result)")
        let report = try BenchCommandTests.report(result)
        #expect(BenchSchema.problems(in: report, comparing: false) == [])
        #expect(report["buildType"] as? String == (Self.isDebugBuild ? "debug" : "release"))
        #expect(result.stderr == Self.debugBuildStandardError, "\(result)")
        #expect(result.stderr.contains("WARNING: this runway is a DEBUG build") == Self.isDebugBuild)

        // The commit the build wrote in, as `runway --version` prints it.
        #expect(report["commit"] as? String == RunwayBuildInfo.current.commit)
        let host = try #require(report["host"] as? [String: Any])
        #expect((host["cores"] as? Int ?? 0) >= 1)
        #expect((host["kernel"] as? String)?.hasPrefix("Linux ") == true, "\(host)")
        #expect(["v1", "v2", "hybrid", "none"].contains(host["cgroupMode"] as? String ?? ""), "\(host)")
        let date = try #require(report["date"] as? String)
        #expect(ISO8601DateFormatter().date(from: date) != nil, "date \(date)")
        #expect(report["runs"] as? Int == 1)
    }

    @Test func theTableNamesTheBuildAndHostAndWarnsAboutADebugBuild() throws {
        let result = try RunwayBinary.run(BenchCommandTests.tinyWorkload(seed: 12))
        try #require(result.status == 0, "\(result)")
        #expect(
            result.stdoutLines.contains { $0.hasPrefix("build: \(Self.isDebugBuild ? "debug" : "release"), commit ") }
        )
        #expect(result.stdoutLines.contains { $0.hasPrefix("host: ") && $0.contains(" cores, Linux ") })
        let warnings = result.stdoutLines.filter { $0 == BenchEnvironment.debugWarning }
        #expect(warnings.count == (Self.isDebugBuild ? 2 : 0), "first and next to the result: \(result)")
    }

    @Test(arguments: [
        ("25:0 / / rw - cgroup2 cgroup2 rw\n", "v2"),
        ("30:24 /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n", "v1"),
        ("30:2 / /a rw - cgroup cgroup rw,memory\n31:2 / /b rw - cgroup2 cgroup2 rw\n", "hybrid"),
        ("22:1 / / rw - ext4 /dev/sda1 rw\n", "none"),
    ])
    func cgroupModeIsReadFromMountinfo(mountinfo: String, mode: String) {
        #expect(BenchEnvironment.cgroupMode(mountinfo: mountinfo) == mode)
    }

    /// The comparison of a real tiny run with swift-nio, with one expiration warning lost on swift-nio's side
    /// (the seam: `NIORunResult.losingOneWarning()`): no ratios, no "passed", a line saying why, exit 1.
    @Test func ratiosAreRefusedWhenSwiftNIOLostAnEvent() async throws {
        let plan = BenchPlan(
            BenchConfiguration(
                apps: 5,
                tasksPerApp: 10,
                budget: .milliseconds(400),
                warningLead: .milliseconds(100),
                endFraction: 0.5,
                duration: .milliseconds(50),
                seed: 7
            )
        )
        let runway = try await RunwayWorkload(plan: plan, progress: nil).run()
        let nio = try await NIOWorkload(plan: plan, progress: nil).run()
        let environment = BenchEnvironment.current(commit: "unknown")

        let clean = BenchReport(plan: plan, runs: [BenchRun(runway: runway, nio: nio)], environment: environment)
        try #require(clean.passed, "the real run itself failed: \(clean.failures)")
        #expect(clean.ratios != nil && clean.ratiosWithheld == nil && clean.exitStatus == 0)

        let lossy = BenchReport(
            plan: plan,
            runs: [BenchRun(runway: runway, nio: nio.losingOneWarning())],
            environment: environment
        )
        #expect(!lossy.passed)
        #expect(lossy.ratios == nil)
        #expect(lossy.ratiosWithheld != nil)
        #expect(lossy.failures == ["swift-nio: 1 expiration warnings lost (expected, never observed)"])
        #expect(lossy.exitStatus == 1)
        let table = lossy.table
        #expect(!table.contains("ratio swift-nio / Runway"), "\(table)")
        #expect(!table.contains("result: passed"), "\(table)")
        #expect(table.contains("ratios WITHHELD: "), "\(table)")
        #expect(lossy.exitLines.contains { $0.hasPrefix("bench failed: ratios withheld: ") })
    }

    @Test func runsReportTheSpreadOfEveryFigure() throws {
        let result = try RunwayBinary.run(BenchCommandTests.tinyWorkload(seed: 13) + ["--json", "--runs", "2"])
        try #require(result.status == 0, "\(result)")
        let report = try BenchCommandTests.report(result)
        #expect(BenchSchema.problems(in: report, comparing: false) == [])
        #expect(report["runs"] as? Int == 2)
        let figures = try #require(report["figures"] as? [[String: Any]])
        let names = figures.compactMap { $0["name"] as? String }
        for kind in ["expirationWarnings", "suspensions", "terminations"] {
            #expect(names.contains("runway.\(kind).p50"), "\(names)")
        }
        for figure in figures {
            let (low, middle, high) = (figure["min"] as? Double, figure["median"] as? Double, figure["max"] as? Double)
            #expect(low != nil && middle != nil && high != nil, "\(figure)")
            #expect(low ?? 1 <= middle ?? 0 && middle ?? 1 <= high ?? 0, "\(figure)")
            #expect(figure["runs"] as? Int == 2, "\(figure)")
        }
    }

    @Test(.disabled(if: SanitizerRuntime.thread, "two runs' lateness under TSan differ by more than tenfold"))
    func aBaselineWithImpossiblyGoodFiguresMakesTheRunExitTwoNamingTheFigure() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let workload = Self.judgedWorkload(seed: 14) + ["--runs", "5"]
        let first = try RunwayBinary.run(workload + ["--json"])
        try #require(first.status == 0, "\(first)")
        let same = folder.appendingPathComponent("same.json")
        try first.stdoutData.write(to: same)
        let otherSeed = try RunwayBinary.run(BenchCommandTests.tinyWorkload(seed: 15) + ["--baseline", same.path])
        #expect(otherSeed.status == 64, "\(otherSeed)")
        #expect(otherSeed.stderr.contains("was made with another workload"), "\(otherSeed)")
        #expect(otherSeed.stdout.isEmpty, "refused before the run: \(otherSeed)")

        // Lateness of 1 ns and rates of 10^15 calls/s in every run: every compared figure is worse now, by more
        // than the threshold and with its spread apart from the baseline's.
        var report = try BenchCommandTests.report(first)
        let figures = try #require(report["figures"] as? [[String: Any]])
        report["figures"] = figures.map { figure -> [String: Any] in
            var figure = figure
            let value = figure["lowerIsBetter"] as? Bool == true ? 1.0 : 1e15
            for key in ["median", "min", "max"] { figure[key] = value }
            figure["values"] = [value, value, value, value, value]
            return figure
        }
        // Made by another version: compared, with a warning naming both.
        report["version"] = "0.1.0"
        let impossible = folder.appendingPathComponent("impossible.json")
        try JSONSerialization.data(withJSONObject: report).write(to: impossible)
        let regressed = try RunwayBinary.run(workload + ["--json", "--baseline", impossible.path])
        #expect(regressed.status == 2, "\(regressed)")
        #expect(
            regressed.stderr.contains("bench regressed against \(impossible.path): runway.expirationWarnings.p50: "),
            "\(regressed)"
        )
        let comparison = try #require(try BenchCommandTests.report(regressed)["baseline"] as? [String: Any])
        let regressions = try #require(comparison["regressions"] as? [[String: Any]])
        let names = regressions.compactMap { $0["figure"] as? String }
        #expect(names.contains("runway.setup.beginCallsPerSecond"), "\(names)")
        #expect(names.contains("runway.expirationWarnings.p90"), "about 200 warnings a run: \(names)")
        // p99.9 and max are shown, not judged; nor is a p99 of the few dozen terminations (their maximum).
        #expect(!names.contains { $0.hasSuffix(".max") || $0.hasSuffix(".p99_9") }, "\(names)")
        #expect(!names.contains("runway.terminations.p99"), "\(names)")
        let table = try RunwayBinary.run(workload + ["--baseline", impossible.path])
        #expect(table.status == 2, "\(table)")
        #expect(table.stdoutLines.contains { $0.hasPrefix("REGRESSED: runway.expirationWarnings.p50: ") }, "\(table)")
        #expect(table.stdoutLines.last?.hasPrefix("result: REGRESSED (") == true, "\(table)")
        #expect(
            table.stderr.contains(
                "warning: --baseline \(impossible.path) was made by runway 0.1.0 (commit "
                    + "\(RunwayBuildInfo.current.commit)) and this is runway \(RunwayVersion.string)"
            ),
            "\(table)"
        )
        #expect(
            table.stdoutLines.contains {
                $0.hasPrefix("baseline: \(impossible.path) (runway 0.1.0, commit \(RunwayBuildInfo.current.commit), ")
                    && $0.contains("5 runs); this run: runway \(RunwayVersion.string), commit ")
            },
            "\(table)"
        )
    }

    @Test func aBaselineOfAnotherWorkloadOrAnOlderRunwayIsRefusedBeforeTheRun() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let older = folder.appendingPathComponent("older.json")
        try Data(#"{"schemaVersion": 1, "passed": true}"#.utf8).write(to: older)
        let refusedOlder = try RunwayBinary.run(BenchCommandTests.tinyWorkload() + ["--baseline", older.path])
        #expect(refusedOlder.status == 64, "\(refusedOlder)")
        #expect(refusedOlder.stderr.contains("--baseline \(older.path): no `"), "\(refusedOlder)")
        #expect(refusedOlder.stdout.isEmpty, "refused before the run: \(refusedOlder)")

        let missing = try RunwayBinary.run(BenchCommandTests.tinyWorkload() + ["--baseline", "/nonexistent.json"])
        #expect(missing.status == 64, "\(missing)")
        #expect(missing.stderr.contains("--baseline /nonexistent.json: cannot read the file"), "\(missing)")
    }

    @Test(arguments: [
        (["--threshold", "10%"], "--threshold"), (["--baseline", "x.json", "--threshold", "0"], "--threshold"),
        (["--runs", "0"], "--runs"),
        (["--baseline", "x.json", "--runs", "4"], "--baseline needs --runs of at least 5"),
        (["--baseline", "x.json", "--threshold", "-5"], "'--threshold <percent>': expected a percentage more than 0"),
        (["--baseline", "x.json", "--threshold", "1001"], "expected a percentage more than 0 and at most 1000"),
        (["--plot", "/nonexistent/x.svg"], "--plot /nonexistent/x.svg: the folder /nonexistent does not exist"),
    ])
    func refusesBadTrustOptions(arguments: [String], named: String) throws {
        let result = try RunwayBinary.run(["bench"] + arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains(named), "\(result)")
    }
}
