extension LatenessPlot {
    /// The chart of `runway bench --plot FILE.svg`: Runway's three kinds of event, and swift-nio's two with
    /// `--compare nio` (dashed), of one run.
    package init(plan: BenchPlan, runway: RunwayRunResult, nio: NIORunResult?) {
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
        self.init(title: title, series: series)
    }
}
