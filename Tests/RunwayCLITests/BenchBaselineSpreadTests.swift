import Foundation
import Testing

@testable import RunwayBench

/// `--baseline` compares distributions: a figure regresses only when its median is worse by more than the
/// threshold and its spread over the runs lies wholly on the worse side of the baseline's.
extension BenchTrustTests {
    @Test(.disabled(if: SanitizerRuntime.thread, "two runs' lateness under TSan differ by more than tenfold"))
    func aRerunOfTheSameBinaryAgainstItsOwnBaselinePasses() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let workload = Self.judgedWorkload(seed: 16)
        // Seven runs a side: a rerun of the same binary calls a figure regressed by chance at most once in
        // C(14, 7) = 3,432 arrangements, under 0.3 % over the judged figures (at the default five: about 4 %).
        let baseline = try RunwayBinary.run(workload + ["--runs", "7", "--json"])
        try #require(baseline.status == 0, "\(baseline)")
        let figures = try #require(try BenchCommandTests.report(baseline)["figures"] as? [[String: Any]])
        for figure in figures {
            #expect((figure["values"] as? [Double])?.count == figure["runs"] as? Int, "every run recorded: \(figure)")
        }
        try baseline.stdoutData.write(to: file)

        // Back to back, with the threshold that called such a rerun a regression when one median was compared
        // with another.
        let rerun = try RunwayBinary.run(workload + ["--baseline", file.path, "--threshold", "15%", "--runs", "7"])
        #expect(rerun.status == 0, "\(rerun)")
        #expect(rerun.stdoutLines.contains { $0.hasPrefix("spread over 7 runs") }, "\(rerun)")
        let header = try #require(rerun.stdoutLines.first { $0.hasPrefix("figure ") && $0.contains("baseline median") })
        #expect(header.contains("now median (min-max)"), "\(rerun)")
        #expect(
            rerun.stdoutLines.contains { $0.hasPrefix("runway.expirationWarnings.p50 ") && $0.contains(") ") },
            "both spreads of a judged figure: \(rerun)"
        )
        #expect(rerun.stdoutLines.contains { $0.hasPrefix("baseline: no figure regressed") }, "\(rerun)")
        #expect(rerun.stdoutLines.last == "result: passed (no event early, lost or unexpected)", "\(rerun)")
    }

    @Test func aBaselineOfFewerThanFiveRunsIsRefusedBeforeTheRun() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let workload = BenchCommandTests.tinyWorkload(seed: 17)
        let single = try RunwayBinary.run(workload + ["--json", "--runs", "4"])
        try #require(single.status == 0, "\(single)")
        try single.stdoutData.write(to: file)
        let refused = try RunwayBinary.run(workload + ["--baseline", file.path])
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.stderr.contains("made with --runs 4; a comparison needs the spread of at least 5"))
        #expect(refused.stdout.isEmpty, "refused before the run: \(refused)")
    }

    /// Lateness in ns, lower is better: the baseline ran 100-110, median 105.
    @Test(arguments: [
        // Worse by 40%, every run above every baseline run: a regression.
        (FigureRuns(median: 147, min: 140, max: 150), BenchReport.ComparedFigure.Verdict.regressed),
        // Worse by 40%, but one run as good as the baseline's worst: the spreads overlap, noise.
        (FigureRuns(median: 147, min: 108, max: 300), .overlapping),
        // Apart, but worse by less than the 10% threshold.
        (FigureRuns(median: 112, min: 111, max: 113), .within),
        // Better.
        (FigureRuns(median: 60, min: 50, max: 70), .within),
    ])
    func aFigureRegressesOnlyWhenItsMedianPassesTheThresholdAndTheSpreadsAreApart(
        now: FigureRuns,
        verdict: BenchReport.ComparedFigure.Verdict
    ) {
        let old = FigureRuns(median: 105, min: 100, max: 110).figure
        let judged = BenchBaseline<BenchReport.Configuration>.judge(now.figure, against: old, thresholdPercent: 10)
        #expect(judged.verdict == verdict, "\(judged)")
        #expect(judged.baselineSpread == BenchReport.Spread(old))
    }

    @Test(arguments: [("p50", 19, false), ("p50", 20, true), ("p90", 99, false), ("p99", 1_000, true)])
    func aQuantileIsJudgedOnlyWithTenEventsBeyondIt(quantile: String, events: Int, judged: Bool) {
        var figure = FigureRuns(median: 1, min: 1, max: 1).figure
        figure.name = "runway.terminations.\(quantile)"
        figure.events = events
        #expect(figure.isCompared == judged)
    }

    struct FigureRuns: Sendable, CustomTestStringConvertible {
        var median: Double
        var min: Double
        var max: Double

        var figure: BenchFigure {
            BenchFigure(
                name: "runway.terminations.p50",
                unit: "ns",
                lowerIsBetter: true,
                runs: 5,
                median: self.median,
                min: self.min,
                max: self.max,
                values: nil,
                events: 1_000
            )
        }

        var testDescription: String { "\(self.median) (\(self.min)-\(self.max))" }
    }
}
