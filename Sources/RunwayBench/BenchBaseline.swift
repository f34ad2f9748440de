import Foundation

/// A previous `runway bench --json` report given with `--baseline FILE.json`, and the comparison of a new run's
/// figures with it.
///
/// Only a report made by a runway that writes `figures` (0.2.0-dev of 2026-11-23 on) serves; only one made with
/// the same workload (every `configuration` field) and the same build type can be compared; a failed one is
/// refused (its figures are not the plan's), and so is a report of the other workload (`workload`: embedded apps or
/// `--processes`). Threading: a value, loaded on the calling thread before the run.
package struct BenchBaseline<Configuration: BenchBaselineConfiguration>: Sendable {
    package let path: String
    package let report: File

    /// The part of a report the comparison reads.
    package struct File: Decodable, Sendable {
        package var schemaVersion: Int
        package var version: String
        package var configuration: Configuration
        package var commit: String
        package var buildType: String
        package var date: String
        package var host: BenchEnvironment.Host
        package var runs: Int
        package var figures: [BenchFigure]
        package var passed: Bool
    }

    package typealias Refusal = BenchBaselineRefusal

    /// The fewest runs a baseline, and a run compared with one, may have: two sets of 5 runs of the same binary
    /// lie wholly apart, one way, with a chance of 1 in 252 per figure, at most 4% over the 10 figures the default
    /// plan judges; 3 and 3 is 1 in 20 per figure, and 2 of 7 same-binary comparisons failed (Decision 289).
    package static var minimumRuns: Int { 5 }
    /// `--runs` when `--baseline` is given and `--runs` is not.
    package static var defaultRuns: Int { 5 }

    /// Reads and checks `path`.
    package static func load(_ path: String) throws(Refusal) -> BenchBaseline {
        let data = try Self.readReport(path)
        guard let version = try? JSONDecoder().decode(BenchReportKind.self, from: data) else {
            throw Refusal(
                message: "--baseline \(path): not a `runway bench --json` report (expected a JSON object with "
                    + "`schemaVersion`)"
            )
        }
        guard version.schemaVersion == BenchReport.currentSchemaVersion else {
            throw Refusal(
                message: "--baseline \(path): a report of schema version \(version.schemaVersion); expected "
                    + "\(BenchReport.currentSchemaVersion): make the baseline again with this runway's `bench --json`"
            )
        }
        guard version.workload == Configuration.workload else {
            throw Refusal(
                message:
                    "--baseline \(path): a report of \(Self.describe(workload: version.workload)), and this run is "
                    + "\(Self.describe(workload: Configuration.workload)): make the baseline with the same command"
            )
        }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch DecodingError.keyNotFound(let key, let context) where context.codingPath.isEmpty {
            throw Refusal(
                message: "--baseline \(path): no `\(key.stringValue)`: a report made by an older runway; make the "
                    + "baseline again with this runway's `bench --json`"
            )
        } catch {
            throw Refusal(message: "--baseline \(path): not a `runway bench --json` report: \(Self.describe(error))")
        }
        guard file.passed else {
            throw Refusal(
                message: "--baseline \(path): that run failed (`passed` is false): its figures are not the plan's"
            )
        }
        guard file.runs >= Self.minimumRuns else {
            throw Refusal(
                message: "--baseline \(path): made with --runs \(file.runs); a comparison needs the spread of at "
                    + "least \(Self.minimumRuns) runs on each side: make the baseline again with --runs "
                    + "\(Self.defaultRuns) --json"
            )
        }
        return BenchBaseline(path: path, report: file)
    }

    /// Reads and checks `path`, then refuses it unless it was made with `configuration` by a `buildType` build.
    package static func load(
        _ path: String,
        matching configuration: Configuration,
        buildType: String
    ) throws(Refusal) -> BenchBaseline {
        let baseline = try Self.load(path)
        if let mismatch = baseline.mismatch(configuration: configuration, buildType: buildType) {
            throw Refusal(message: mismatch)
        }
        return baseline
    }

    /// A warning when another version of runway made this baseline: the comparison goes on (comparing builds is a
    /// baseline's purpose, and the schema, workload and build type were checked equal), but a change in what a
    /// figure measures shows as a regression, so both versions are named.
    package func versionWarning(current: String) -> String? {
        guard self.report.version != current else { return nil }
        return "warning: --baseline \(self.path) was made by runway \(self.report.version) (commit "
            + "\(self.report.commit)) and this is runway \(current): comparing across versions; a figure whose "
            + "meaning changed between them shows as a change"
    }

    /// Why this baseline cannot be compared with a run of `configuration` by a `buildType` build, or nil.
    package func mismatch(configuration: Configuration, buildType: String) -> String? {
        if self.report.buildType != buildType {
            return "--baseline \(self.path) was made by a \(self.report.buildType) build and this runway is a "
                + "\(buildType) build: their timings are not comparable"
        }
        if self.report.configuration != configuration {
            return "--baseline \(self.path) was made with another workload (configuration "
                + "\(self.report.configuration.summary)) than this run (\(configuration.summary)): "
                + "run with the baseline's options"
        }
        return nil
    }

    /// Every compared figure (`BenchFigure.isCompared`) present in both, as distributions over the runs: a figure
    /// regresses only when its median is worse than the baseline's by more than `thresholdPercent` and its spread
    /// (minimum to maximum over the runs) lies wholly on the worse side of the baseline's. A worse median whose
    /// spread overlaps the baseline's is noise: shown (`overlapping`), not judged.
    /// - Parameters:
    ///   - figures: this run's.
    ///   - runs: this run's `--runs`, for the chance of a false alarm (`falseAlarmPercent`).
    ///   - thresholdPercent: `--threshold`.
    package func compare(
        _ figures: [BenchFigure],
        runs: Int,
        thresholdPercent: Double
    ) -> BenchReport.BaselineComparison {
        let previous = Dictionary(self.report.figures.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var compared: [BenchReport.ComparedFigure] = []
        for figure in figures where figure.isCompared {
            guard let old = previous[figure.name], old.median > 0 else { continue }
            compared.append(Self.judge(figure, against: old, thresholdPercent: thresholdPercent))
        }
        let regressions = compared.filter { $0.verdict == .regressed }.map { compared in
            BenchReport.Regression(
                figure: compared.figure,
                unit: compared.unit,
                baseline: compared.baselineSpread.median,
                current: compared.currentSpread.median,
                changePercent: compared.changePercent,
                baselineSpread: compared.baselineSpread,
                currentSpread: compared.currentSpread
            )
        }
        return BenchReport.BaselineComparison(
            file: self.path,
            version: self.report.version,
            commit: self.report.commit,
            date: self.report.date,
            runs: self.report.runs,
            thresholdPercent: thresholdPercent,
            compared: compared.count,
            falseAlarmPercent: Self.falseAlarmPercent(
                baselineRuns: self.report.runs,
                currentRuns: runs,
                figures: compared.count
            ),
            figures: compared,
            regressions: regressions
        )
    }

    /// One figure against the baseline's: the change of the medians and whether the spreads overlap.
    static func judge(
        _ figure: BenchFigure,
        against old: BenchFigure,
        thresholdPercent: Double
    ) -> BenchReport.ComparedFigure {
        let change = (figure.median - old.median) / old.median * 100
        let worse = figure.lowerIsBetter ? change : -change
        // Wholly worse: every run now is worse than every run of the baseline.
        let apart = figure.lowerIsBetter ? figure.min > old.max : figure.max < old.min
        let verdict: BenchReport.ComparedFigure.Verdict =
            worse <= thresholdPercent ? .within : apart ? .regressed : .overlapping
        return BenchReport.ComparedFigure(
            figure: figure.name,
            unit: figure.unit,
            baselineSpread: BenchReport.Spread(old),
            currentSpread: BenchReport.Spread(figure),
            changePercent: change,
            verdict: verdict
        )
    }

    /// `runway bench --processes`, or `runway bench` (embedded apps) for a report without `workload`.
    private static func describe(workload: String?) -> String {
        workload.map { "`runway bench --\($0)`" } ?? "`runway bench` (embedded apps)"
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing key `\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))`"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "`\(path)`: \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// `--threshold`: a percentage, `10%` or `10`, more than 0 and at most 1000.
package struct BenchThreshold: Sendable {
    package var percent: Double

    package init(percent: Double) {
        self.percent = percent
    }

    package init?(argument: String) {
        let digits = argument.hasSuffix("%") ? String(argument.dropLast()) : argument
        guard let value = Double(digits), value.isFinite, value > 0, value <= 1_000 else { return nil }
        self.percent = value
    }

    package var defaultValueDescription: String { "\(Self.formatted(self.percent))%" }

    package static func formatted(_ percent: Double) -> String {
        percent.rounded() == percent ? String(Int(percent)) : String(percent)
    }
}

/// Why a file cannot serve as a baseline; `message` names the file and what was expected.
package struct BenchBaselineRefusal: Error, Sendable {
    package var message: String
}

/// The `configuration` of one kind of `runway bench --json` report: what must be equal for two reports to be
/// compared.
package protocol BenchBaselineConfiguration: Decodable, Sendable, Equatable {
    /// The report's `workload` field: nil (absent) for embedded apps, `processes` for `--processes`.
    static var workload: String? { get }
    /// The fields, one `name value` each, for the refusal of another workload.
    var summary: String { get }
}

extension BenchReport.Configuration: BenchBaselineConfiguration {
    package static var workload: String? { nil }

    package var summary: String {
        var parts = [
            "apps \(self.apps)", "tasksPerApp \(self.tasksPerApp)", "budget \(self.budgetSeconds)",
            "lead \(self.warningLeadSeconds)", "endFraction \(self.endFraction)", "duration \(self.durationSeconds)",
            "seed \(self.seed)",
        ]
        if let priority = self.realtimePriority { parts.append("realtimePriority \(priority)") }
        if let spin = self.wakeupSpinMicroseconds { parts.append("wakeupSpin \(spin)") }
        return parts.joined(separator: ", ")
    }
}

extension ProcessBenchReport.Configuration: BenchBaselineConfiguration {
    package static var workload: String? { ProcessBenchReport.workloadName }

    package var summary: String {
        [
            "apps \(self.apps)", "tasksPerApp \(self.tasksPerApp)", "budget \(self.budgetSeconds)",
            "lead \(self.warningLeadSeconds)", "endFraction \(self.endFraction)", "duration \(self.durationSeconds)",
            "seed \(self.seed)", "suspension \(self.suspension)", "terminationGrace \(self.terminationGraceSeconds)",
        ].joined(separator: ", ")
    }
}

/// The first fields read from a `--baseline` file: which schema and which workload.
private struct BenchReportKind: Decodable {
    package var schemaVersion: Int
    package var workload: String?
}
