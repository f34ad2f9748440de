import Foundation

extension ProcessBenchReport {
    /// The child processes' part of the table of `runway bench --processes`: a header, one row per kind of event,
    /// then setup and the loop. Lateness in microseconds.
    package var workloadLines: [String] {
        let configuration = self.configuration
        let plan = self.plan
        let section = self.processes
        var lines: [String] = []
        lines.append(
            "runway bench --processes: \(grouped(configuration.apps)) child processes x "
                + "\(grouped(configuration.tasksPerApp)) tasks, budget \(seconds(configuration.budgetSeconds)), "
                + "warning lead \(seconds(configuration.warningLeadSeconds)), "
                + "end fraction \(configuration.endFraction), duration \(seconds(configuration.durationSeconds)), "
                + "termination grace \(seconds(configuration.terminationGraceSeconds)), "
                + "overrunners \(configuration.overrunners), seed \(configuration.seed)"
        )
        lines.append(
            "plan: \(grouped(plan.finisherApps)) apps end their tasks before the warning; of the "
                + "\(grouped(plan.suspendedOverrunnerApps + plan.exitingOverrunnerApps + plan.killedOverrunnerApps)) "
                + "that ignore it, \(grouped(plan.suspendedOverrunnerApps)) are suspended at the deadline, "
                + "\(grouped(plan.exitingOverrunnerApps)) exit on suspend (SIGTERM), "
                + "\(grouped(plan.killedOverrunnerApps)) ignore SIGTERM and are killed (SIGKILL at the deadline); "
                + "\(grouped(plan.events)) events expected"
        )
        lines.append(
            "setup: \(seconds(section.setup.seconds)) to start the children and begin "
                + "\(grouped(section.setup.tasksBegun)) tasks over the app protocol; "
                + "suspension: \(section.suspensionMechanism) (--suspension \(configuration.suspension))"
        )
        lines.append("")
        lines.append(contentsOf: BenchReport.eventTable(section.kinds.map { ($0.name, $0.events) }))
        lines.append("")
        lines.append(
            "lateness from: warnings, deadline - lead, to the line written to the app; stopped after end, the "
                + "last task's end; stopped at deadline, SIGTERM and SIGKILL, the budget deadline; to the kernel's "
                + "confirmation (stop or freeze, checked every 1 ms) or the reap"
        )
        lines.append(
            "deadline phase \(seconds(section.deadlinePhaseSeconds)); "
                + "loop busy: setup \(utilisation(section.loop.setup)), "
                + "deadlines \(utilisation(section.loop.deadlines)) (1 - uv_metrics_idle_time / wall time)"
        )
        return lines
    }

    /// No peer runs with `--processes`.
    package var peerLines: [String] { [] }
    package var passedClause: String { "every planned event seen exactly once, none early" }
    package var regressedClause: String { "every event seen once and none early" }
}
