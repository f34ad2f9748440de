import ArgumentParser
import Foundation

extension BenchCommand {
    /// `--plot FILE.svg`: the lateness-by-percentile chart of one run (the last).
    static func writePlot(to path: String, plan: BenchPlan, runway: RunwayRunResult, nio: NIORunResult?) throws {
        let configuration = plan.configuration
        var series = [
            LatenessPlot.Series(
                name: "Runway warnings",
                color: "#1f77b4",
                dashed: false,
                statistics: runway.events.warnings
            ),
            LatenessPlot.Series(
                name: "Runway suspensions",
                color: "#2ca02c",
                dashed: false,
                statistics: runway.events.suspensions
            ),
            LatenessPlot.Series(
                name: "Runway terminations",
                color: "#d62728",
                dashed: false,
                statistics: runway.events.terminations
            ),
        ]
        if let nio {
            series.append(
                LatenessPlot.Series(
                    name: "NIO warnings",
                    color: "#1f77b4",
                    dashed: true,
                    statistics: nio.events.warnings
                )
            )
            series.append(
                LatenessPlot.Series(
                    name: "NIO terminations",
                    color: "#d62728",
                    dashed: true,
                    statistics: nio.events.terminations
                )
            )
        }
        let title =
            "runway bench: \(configuration.apps) apps x \(configuration.tasksPerApp) tasks, "
            + "budget \(configuration.budget), lead \(configuration.warningLead), seed \(configuration.seed)"
        let svg = LatenessPlot(title: title, series: series).svg
        do {
            try svg.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            printError("error: cannot write the plot to \(path): \(error)")
            throw ExitCode(1)
        }
    }
}
