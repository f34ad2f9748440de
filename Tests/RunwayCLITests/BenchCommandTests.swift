import CLibUV
import Foundation
import Testing

/// `runway bench` on a tiny workload (5 apps x 10 tasks, budget 0.4 s), run as a real process. The tests check
/// the JSON report's schema and the counts, which a seed fixes; never timings.
///
/// With seed 7 and end fraction 0.5, the plan (Sources/RunwayBench/BenchPlan.swift) has 4 finishers and 1
/// overrunner; the test reads the plan's counts from the report rather than hard-coding them, and checks that
/// the observed counts equal them.
@Suite struct BenchCommandTests {
    static func tinyWorkload(seed: Int = 7) -> [String] {
        [
            "bench", "--apps", "5", "--tasks-per-app", "10", "--budget", "0.4", "--warning-lead", "0.1",
            "--duration", "0.05", "--seed", "\(seed)",
        ]
    }

    @Test func jsonReportFollowsTheSchemaAndTheSameSeedGivesTheSameCounts() throws {
        let plot = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).svg")
        defer { try? FileManager.default.removeItem(at: plot) }
        let first = try RunwayBinary.run(Self.tinyWorkload() + ["--json"])
        let second = try RunwayBinary.run(Self.tinyWorkload() + ["--json", "--compare", "nio", "--plot", plot.path])
        try #require(first.status == 0, "\(first)")
        try #require(second.status == 0, "\(second)")

        let firstReport = try Self.report(first)
        let secondReport = try Self.report(second)
        #expect(BenchSchema.problems(in: firstReport, comparing: false) == [])
        #expect(BenchSchema.problems(in: secondReport, comparing: true) == [])

        // The counts a seed fixes: the plan, and every kind's expected and observed counts.
        let firstCounts = Self.counts(firstReport)
        #expect(firstCounts == Self.counts(secondReport))
        #expect(firstCounts["plan.finisherApps"] == 4)
        #expect(firstCounts["plan.overrunnerApps"] == 1)
        for kind in ["expirationWarnings", "suspensions", "terminations"] {
            #expect(firstCounts["runway.\(kind).count"] == firstCounts["runway.\(kind).expected"], "\(kind)")
            for problem in ["early", "lost", "unexpected"] {
                #expect(firstCounts["runway.\(kind).\(problem)"] == 0, "\(kind) \(problem)")
            }
        }
        #expect(firstCounts["runway.expirationWarnings.expected"] == firstCounts["plan.overrunnerApps"].map { $0 * 10 })
        #expect(firstCounts["runway.suspensions.expected"] == firstCounts["plan.finisherApps"])
        #expect(firstCounts["runway.terminations.expected"] == firstCounts["plan.overrunnerApps"])

        let svg = try String(contentsOf: plot, encoding: .utf8)
        #expect(svg.hasPrefix("<svg "))
        #expect(svg.contains("Runway warnings") && svg.contains("NIO terminations"))
    }

    @Test func readmeDocumentsEveryField() throws {
        let readme = try String(
            contentsOf: RunwayBinary.repositoryRoot().appendingPathComponent("Docs/Benchmarking.md"),
            encoding: .utf8
        )
        let section = try #require(readme.components(separatedBy: "## `runway bench`").dropFirst().first)
        // A name is documented on its own (`count`) or in a key path (`runway.memory`).
        for name in BenchSchema.fieldNames {
            let documented = ["`\(name)`", "`\(name).", ".\(name)`"].contains { section.contains($0) }
            #expect(documented, "Docs/Benchmarking.md's runway bench section does not document `\(name)`")
        }
    }

    @Test func humanTableByDefault() throws {
        let result = try RunwayBinary.run(Self.tinyWorkload(seed: 8))
        try #require(result.status == 0, "\(result)")
        #expect(result.stdoutLines.contains { $0.hasPrefix("expiration warnings") })
        #expect(result.stdoutLines.last == "result: passed (no event early, lost or unexpected)")
        // Standard error is not a terminal: no progress bar; only a debug build's warning.
        #expect(result.stderr == BenchTrustTests.debugBuildStandardError, "\(result)")
    }

    @Test func refusesAWarningLeadThatLeavesNoTimeToEndTasks() throws {
        let result = try RunwayBinary.run("bench", "--budget", "1", "--warning-lead", "1", "--end-fraction", "0.5")
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("--warning-lead"))
    }

    @Test(.disabled(if: SanitizerRuntime.thread, "a plan of 0.4 s budgets falls behind under TSan's slowdown"))
    func realtimePriorityIsReportedForBothLoops() throws {
        guard geteuid() == 0 else {
            print("not root: the granted case of --realtime-priority is not checked here")
            return
        }
        let result = try RunwayBinary.run(
            Self.tinyWorkload() + ["--realtime-priority", "10", "--wakeup-spin", "50", "--json", "--compare", "nio"]
        )
        try #require(result.status == 0, "\(result)")
        let report = try Self.report(result)
        #expect(BenchSchema.problems(in: report, comparing: true) == [])
        #expect((report["configuration"] as? [String: Any])?["realtimePriority"] as? Int == 10)
        #expect((report["configuration"] as? [String: Any])?["wakeupSpinMicroseconds"] as? Int == 50)
        // Spinning never serves a deadline early.
        for kind in ["expirationWarnings", "terminations"] {
            #expect(((report["runway"] as? [String: Any])?[kind] as? [String: Any])?["early"] as? Int == 0, "\(kind)")
        }
        #expect(
            ((report["runway"] as? [String: Any])?["loop"] as? [String: Any])?["priority"] as? String == "SCHED_FIFO 10"
        )
        #expect((report["nio"] as? [String: Any])?["loopPriority"] as? String == "SCHED_FIFO 10")
    }

    @Test func realtimePriorityRefusedWithoutCapSysNiceIsReportedAndTheRunGoesOn() throws {
        let setpriv = "/usr/bin/setpriv"
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: setpriv) else {
            print("needs root and \(setpriv) to drop CAP_SYS_NICE: refusal test skipped")
            return
        }
        guard runway_realtime_priority_limit() < 10 else {
            print("RLIMIT_RTPRIO allows priority 10 without CAP_SYS_NICE: refusal test skipped")
            return
        }
        let result = try RunwayBinary.run(
            Self.tinyWorkload() + ["--realtime-priority", "10", "--compare", "nio"],
            launcher: [setpriv, "--bounding-set=-sys_nice", "--inh-caps=-sys_nice"]
        )
        try #require(result.status == 0, "\(result)")
        let refusal =
            "loop thread: SCHED_FIFO 10 refused: Operation not permitted (needs CAP_SYS_NICE or `ulimit -r` of at "
            + "least 10); running at the inherited policy"
        // Once for Runway's loop, once for swift-nio's; and the scheduler's warning on standard error.
        #expect(result.stdoutLines.filter { $0 == refusal }.count == 2, "\(result)")
        #expect(result.stderr.contains("loop thread priority refused"), "\(result)")
        #expect(result.stdoutLines.last == "result: passed (no event early, lost or unexpected)")
    }

    @Test(arguments: ["0", "100", "x"])
    func refusesAPriorityOutsideOneToNinetyNine(value: String) throws {
        let result = try RunwayBinary.run("bench", "--realtime-priority", value)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("--realtime-priority"), "\(result)")
    }

    @Test(arguments: ["-1", "1001"])
    func refusesASpinOutsideZeroToOneMillisecond(value: String) throws {
        let result = try RunwayBinary.run("bench", "--wakeup-spin", value)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("--wakeup-spin"), "\(result)")
    }

    static func report(_ result: RunResult) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: result.stdoutData)
        return try #require(object as? [String: Any], "not a JSON object: \(result)")
    }

    /// Every integer field whose name says it is a count, by key path.
    static func counts(_ report: [String: Any]) -> [String: Int] {
        var counts: [String: Int] = [:]
        let countNames: Set = [
            "finisherApps", "overrunnerApps", "tasks", "tasksEndingBeforeWarning", "expected", "count", "early",
            "lost", "unexpected", "tasksBegun", "tasksRefused", "calls", "errors",
        ]
        func walk(_ value: Any, _ path: String) {
            if let object = value as? [String: Any] {
                for (key, child) in object where key != "nio" && key != "ratios" {
                    walk(child, path.isEmpty ? key : "\(path).\(key)")
                }
            } else if let name = path.split(separator: ".").last, countNames.contains(String(name)),
                let number = value as? NSNumber
            {
                counts[path] = number.intValue
            }
        }
        walk(report, "")
        return counts
    }
}
