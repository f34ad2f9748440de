import Foundation

/// A `runway bench` report: `BenchReport` (embedded apps) and `ProcessBenchReport` (`--processes`). Each gives its
/// workload's lines and verdict clauses; the table, the gathering of runs into figures and failures, the build
/// lines, the spread, the baseline, the verdict and the exit status are made here once for both, so both name their
/// making, show the spread and judge a baseline alike.
package protocol BenchTrustReport {
    var version: String { get }
    var commit: String { get }
    var buildType: String { get }
    var date: String { get }
    var host: BenchEnvironment.Host { get }
    var runs: Int { get }
    var figures: [BenchFigure] { get }
    var baseline: BenchReport.BaselineComparison? { get }
    var passed: Bool { get }
    var failures: [String] { get }
    /// The failures that say a side fell behind its own plan (exit 3 when they are all of them).
    var fellBehind: [String] { get }
    /// Why the ratios with a peer were withheld; nil when none were asked or they were printed.
    var ratiosWithheld: String? { get }
    /// The workload's part of the table: its header, plan, event table and figures, before the build lines.
    var workloadLines: [String] { get }
    /// After the build lines: the peer's section, or nothing.
    var peerLines: [String] { get }
    /// The verdict's reason when the run passed, and when it passed but a figure regressed.
    var passedClause: String { get }
    var regressedClause: String { get }
}

extension BenchReport: BenchTrustReport {}

extension ProcessBenchReport: BenchTrustReport {
    /// No peer runs with `--processes`.
    package var ratiosWithheld: String? { nil }
    /// Its failures (a child not ready, an event lost...) are all exit 1.
    package var fellBehind: [String] { [] }
}

extension BenchTrustReport {
    /// The human-readable report: the debug-build warning, the workload's lines, the build lines, the peer's
    /// section, the spread, the baseline and the verdict.
    package var table: String {
        var lines: [String] = []
        if self.buildType == "debug" { lines.append(BenchEnvironment.debugWarning) }
        lines.append(contentsOf: self.workloadLines)
        lines.append(contentsOf: self.environmentLines)
        lines.append(contentsOf: self.peerLines)
        lines.append(contentsOf: self.spreadLines)
        lines.append(contentsOf: self.baselineLines)
        lines.append("")
        lines.append(contentsOf: self.verdictLines)
        return lines.joined(separator: "\n")
    }

    /// Every figure's spread over `runs` and every run's failures, each prefixed `run i of n: ` when there are
    /// several; `each` gives one run's figure samples and failures.
    package static func gather<Run>(
        _ runs: [Run],
        _ each: (Run) -> (samples: [BenchFigure.Sample], failures: [String])
    ) -> (figures: [BenchFigure], failures: [String]) {
        var samples: [[BenchFigure.Sample]] = []
        var failures: [String] = []
        for (index, run) in runs.enumerated() {
            let (runSamples, runFailures) = each(run)
            samples.append(runSamples)
            let prefix = runs.count > 1 ? "run \(index + 1) of \(runs.count): " : ""
            failures += runFailures.map { prefix + $0 }
        }
        return (BenchFigure.spread(samples), failures)
    }

    /// The failures of one kind of event: some early, lost (expected, never observed) or unexpected (`unexpected`
    /// says what that kind's unexpected events are); `side` is put before each, `swift-nio: ` for the peer.
    package static func eventFailures(
        _ name: String,
        early: Int,
        lost: Int,
        unexpected: Int,
        unexpectedMeaning: String,
        side: String = ""
    ) -> [String] {
        var failures: [String] = []
        if early > 0 { failures.append("\(side)\(early) \(name) earlier than expected") }
        if lost > 0 { failures.append("\(side)\(lost) \(name) lost (expected, never observed)") }
        if unexpected > 0 { failures.append("\(side)\(unexpected) \(name) \(unexpectedMeaning)") }
        return failures
    }

    /// What made the report: the version, the build (type, commit, date) and the host, one line each.
    package var environmentLines: [String] {
        let host = self.host
        return [
            "version: runway \(self.version)",
            "build: \(self.buildType), commit \(self.commit); started \(self.date)",
            "host: \(host.cores) cores, \(host.kernel), cgroup \(host.cgroupMode)",
        ]
    }

    /// With `--runs` above 1: every figure's median, minimum and maximum over the runs.
    package var spreadLines: [String] {
        guard self.runs > 1 else { return [] }
        var lines = ["", "spread over \(self.runs) runs (lateness in us, rates in calls/s, memory in B):"]
        let width = max(20, self.figures.map(\.name.count).max() ?? 0)
        func row(_ name: String, _ cells: [String]) -> String {
            name.padding(toLength: width, withPad: " ", startingAt: 0)
                + cells.map { String(repeating: " ", count: max(1, 11 - $0.count)) + $0 }.joined()
        }
        lines.append(row("figure", ["median", "min", "max", "runs"]))
        for figure in self.figures {
            let cells = [figure.median, figure.min, figure.max].map { Self.formatFigure($0, unit: figure.unit) }
            lines.append(row(figure.name, cells + ["\(figure.runs)"]))
        }
        return lines
    }

    /// With `--baseline`: what was compared, every judged figure with both spreads, and every regression.
    package var baselineLines: [String] {
        guard let baseline = self.baseline else { return [] }
        let threshold = BenchThreshold.formatted(baseline.thresholdPercent)
        var lines = [
            "",
            "baseline: \(baseline.file) (runway \(baseline.version), commit \(baseline.commit), \(baseline.date), "
                + "\(baseline.runs) runs); this run: runway \(self.version), commit \(self.commit), \(self.runs) runs",
            "baseline: \(baseline.compared) figures compared; a regression is a median worse by more than "
                + "\(threshold)% with every run worse than every baseline run (spreads apart); chance that a rerun of "
                + "the same binary shows one: at most \(String(format: "%.1f", baseline.falseAlarmPercent))%",
        ]
        let width = max(20, baseline.figures.map(\.figure.count).max() ?? 0)
        // Right-aligned: the two spreads, the change, the verdict.
        let widths = [27, 27, 10, 12]
        func row(_ cells: [String]) -> String {
            cells[0].padding(toLength: width, withPad: " ", startingAt: 0)
                + zip(cells.dropFirst(), widths).map { cell, cellWidth in
                    String(repeating: " ", count: max(1, cellWidth - cell.count)) + cell
                }.joined()
        }
        lines.append(row(["figure", "baseline median (min-max)", "now median (min-max)", "change", "verdict"]))
        for figure in baseline.figures {
            lines.append(
                row([
                    figure.figure, Self.describe(figure.baselineSpread, unit: figure.unit),
                    Self.describe(figure.currentSpread, unit: figure.unit),
                    String(format: "%+.1f%%", figure.changePercent), figure.verdict.rawValue,
                ])
            )
        }
        if baseline.regressions.isEmpty {
            lines.append("baseline: no figure regressed (worse by more than \(threshold)% with the spreads apart)")
        }
        for regression in baseline.regressions {
            lines.append("REGRESSED: \(Self.describe(regression))")
        }
        return lines
    }

    /// The table's closing lines: the debug-build warning, then the verdict, which agrees with `exitStatus`:
    /// `result: REGRESSED (<regressedClause>, but N figures worse than the baseline)`, `result: passed
    /// (<passedClause>)`, or `result: FAILED` with each failure indented below it.
    package var verdictLines: [String] {
        var lines: [String] = []
        if self.buildType == "debug" { lines.append(BenchEnvironment.debugWarning) }
        if self.passed, let baseline = self.baseline, !baseline.regressions.isEmpty {
            lines.append(
                "result: REGRESSED (\(self.regressedClause), but \(baseline.regressions.count) figures worse than the "
                    + "baseline)"
            )
        } else if self.passed {
            lines.append("result: passed (\(self.passedClause))")
        } else {
            lines.append("result: FAILED")
            lines.append(contentsOf: self.failures.map { "  \($0)" })
        }
        return lines
    }

    /// The exit status of `runway bench`: 1 when a run failed (on either side), 3 when it failed only because a
    /// side fell behind its own plan, else 2 when a figure regressed against `--baseline`, else 0.
    package var exitStatus: Int32 {
        if !self.passed { return self.failures.count == self.fellBehind.count ? 3 : 1 }
        return self.baseline?.regressions.isEmpty == false ? 2 : 0
    }

    /// What `runway bench` prints on standard error after the report: each failure, the withheld ratios and each
    /// regression, one line each.
    package var exitLines: [String] {
        var lines = self.failures.map { "bench failed: \($0)" }
        if let withheld = self.ratiosWithheld { lines.append("bench failed: ratios withheld: \(withheld)") }
        if let baseline = self.baseline {
            let threshold = BenchThreshold.formatted(baseline.thresholdPercent)
            for regression in baseline.regressions {
                lines.append(
                    "bench regressed against \(baseline.file): \(Self.describe(regression)), threshold \(threshold)%"
                )
            }
        }
        return lines
    }

    /// `runway.expirationWarnings.p99: 812.3 (790.0-850.2) us, baseline 700.1 (650.3-720.9) us (+16.0%)`: medians,
    /// then minimum and maximum over the runs.
    package static func describe(_ regression: BenchReport.Regression) -> String {
        let unit = regression.unit == "ns" ? "us" : regression.unit
        return "\(regression.figure): \(Self.describe(regression.currentSpread, unit: regression.unit)) \(unit), "
            + "baseline \(Self.describe(regression.baselineSpread, unit: regression.unit)) \(unit) "
            + "(\(String(format: "%+.1f", regression.changePercent))%)"
    }

    /// `812.3 (790.0-850.2)`: the median, then the minimum and maximum.
    static func describe(_ spread: BenchReport.Spread, unit: String) -> String {
        let (median, low, high) = (spread.median, spread.min, spread.max)
        return "\(Self.formatFigure(median, unit: unit)) "
            + "(\(Self.formatFigure(low, unit: unit))-\(Self.formatFigure(high, unit: unit)))"
    }

    /// Nanoseconds as microseconds with one decimal; rates and bytes as whole numbers.
    private static func formatFigure(_ value: Double, unit: String) -> String {
        unit == "ns" ? String(format: "%.1f", value / 1_000) : String(format: "%.0f", value)
    }
}
