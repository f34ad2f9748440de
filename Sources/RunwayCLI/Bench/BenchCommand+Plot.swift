import ArgumentParser
import Foundation
import RunwayBench

extension BenchCommand {
    /// `--plot FILE.svg`: the lateness-by-percentile chart of one run (the last).
    static func writePlot(to path: String, plan: BenchPlan, runway: RunwayRunResult, nio: NIORunResult?) throws {
        let svg = LatenessPlot(plan: plan, runway: runway, nio: nio).svg
        do {
            try svg.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            printError("error: cannot write the plot to \(path): \(error)")
            throw ExitCode(1)
        }
    }
}
