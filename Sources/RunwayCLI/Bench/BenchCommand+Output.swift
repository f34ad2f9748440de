import ArgumentParser
import Foundation
import RunwayBench

extension BenchCommand {
    /// `--baseline`: the file, checked against this run's workload (`configuration`) and build type; nil without
    /// the option. Prints the refusal and exits 64 when the file cannot serve. Serves both workloads: the
    /// embedded apps' `BenchReport.Configuration` and `--processes`' `ProcessBenchReport.Configuration`.
    func loadBaseline<Configuration: BenchBaselineConfiguration>(
        matching configuration: Configuration,
        environment: BenchEnvironment
    ) throws -> BenchBaseline<Configuration>? {
        guard let path = self.baseline else { return nil }
        do {
            let baseline = try BenchBaseline<Configuration>.load(
                path,
                matching: configuration,
                buildType: environment.buildType
            )
            if let warning = baseline.versionWarning(current: environment.version) { printError(warning) }
            return baseline
        } catch {
            ErrorOutput.report(code: "usage", message: error.message)
            throw ExitCode.validationFailure
        }
    }

    /// Prints `report` on standard output: pretty, key-sorted JSON with `--json`, else `table`.
    func printReport(_ report: some Encodable, table: @autoclosure () -> String) throws {
        if self.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(table())
        }
    }

    /// Prints the report's exit lines on standard error and exits with its status when that is not 0.
    func exitWithReportStatus(_ report: some BenchTrustReport) throws {
        for line in report.exitLines { printError(line) }
        let status = report.exitStatus
        if status != 0 { throw ExitCode(status) }
    }
}
