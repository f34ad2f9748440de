import Foundation

extension BenchReport {
    /// The embedded apps' part of the table: a header, one row per kind of event, then memory and the loop.
    /// Lateness in microseconds.
    package var workloadLines: [String] {
        let configuration = self.configuration
        var lines: [String] = []
        lines.append(
            "runway bench: \(grouped(configuration.apps)) apps x \(grouped(configuration.tasksPerApp)) tasks, "
                + "budget \(seconds(configuration.budgetSeconds)), "
                + "warning lead \(seconds(configuration.warningLeadSeconds)), "
                + "end fraction \(configuration.endFraction), duration \(seconds(configuration.durationSeconds)), "
                + "seed \(configuration.seed)"
        )
        lines.append(
            "plan: \(grouped(self.plan.finisherApps)) apps end their tasks before the warning "
                + "(\(grouped(self.plan.tasksEndingBeforeWarning)) tasks), "
                + "\(grouped(self.plan.overrunnerApps)) ignore it"
        )
        let setup = self.runway.setup
        lines.append(
            "setup: \(seconds(setup.seconds)); \(grouped(setup.tasksBegun)) tasks begun, "
                + "\(perSecond(setup.beginCallsPerSecond)) beginBackgroundTask calls/s from one thread"
        )
        lines.append("")
        lines.append(
            contentsOf: Self.eventTable([
                ("expiration warnings", self.runway.expirationWarnings), ("suspensions", self.runway.suspensions),
                ("terminations", self.runway.terminations),
            ])
        )
        lines.append("")
        let ends = self.runway.ends
        lines.append(
            "ends: \(grouped(ends.calls)) endBackgroundTask calls on the loop thread, "
                + "\(perSecond(ends.callsPerSecond)) calls/s of loop time; "
                + "deadline phase \(seconds(self.runway.deadlinePhaseSeconds))"
        )
        let memory = self.runway.memory
        lines.append(
            "memory: peak RSS \(megabytes(memory.peakResidentBytes)); "
                + "\(memory.bytesPerOutstandingTask.map { String(format: "%.0f", $0) } ?? "?") B per outstanding task "
                + "(\(megabytes(memory.residentBeforeTasksBytes)) -> \(megabytes(memory.residentWithTasksBytes)) "
                + "for \(grouped(memory.outstandingTasks)) tasks)"
        )
        lines.append(
            "loop busy: setup \(utilisation(self.runway.loop.setup)), "
                + "deadlines \(utilisation(self.runway.loop.deadlines)) "
                + "(1 - uv_metrics_idle_time / wall time)"
        )
        let spin = configuration.wakeupSpinMicroseconds.map { ", wake-up spin \($0) us" } ?? ""
        lines.append("loop thread: \(self.runway.loop.priority)\(spin)")
        return lines
    }

    /// With `--compare nio`: swift-nio's event table and the ratios, or why they were withheld.
    package var peerLines: [String] {
        var lines: [String] = []
        if let nio = self.nio {
            lines.append("")
            lines.append(
                "swift-nio, the same deadlines with scheduleTask(deadline:) on one MultiThreadedEventLoopGroup loop:"
            )
            lines.append(
                contentsOf: Self.eventTable([
                    ("expiration warnings", nio.expirationWarnings), ("terminations", nio.terminations),
                ])
            )
            lines.append("loop thread: \(nio.loopPriority)")
            lines.append(contentsOf: self.lateBoundLines)
            lines.append("")
            if let ratios = self.ratios {
                let over = self.runs > 1 ? ", medians over \(self.runs) runs" : ""
                lines.append("ratio swift-nio / Runway (above 1: Runway less late\(over)):")
                lines.append(Self.row(["", "p50", "p90", "p99", "p99.9", "max"]))
                for (name, ratio) in [
                    ("expiration warnings", ratios.expirationWarnings), ("terminations", ratios.terminations),
                ] {
                    lines.append(
                        Self.row([name] + ratio.values.map { $0.map { String(format: "%.2fx", $0) } ?? "-" })
                    )
                }
            } else {
                lines.append("ratios WITHHELD: \(self.ratiosWithheld ?? "a run failed")")
            }
        }
        return lines
    }

    /// With `--compare nio`: the bound both sides are held to, and the last run's events beyond it.
    var lateBoundLines: [String] {
        guard let bound = self.lateBound else { return [] }
        func beyond(_ side: String, _ kinds: [(String, String)]) -> String {
            side + " " + kinds.map { "\(grouped(bound.beyond[$1] ?? 0)) \($0)" }.joined(separator: ", ")
        }
        let runway = beyond(
            "Runway",
            [
                ("warnings", "runway.expirationWarnings"), ("suspensions", "runway.suspensions"),
                ("terminations", "runway.terminations"),
            ]
        )
        let nio = beyond("swift-nio", [("warnings", "nio.expirationWarnings"), ("terminations", "nio.terminations")])
        return [
            "late bound: \(bound.nanoseconds / 1_000_000) ms; a side with more than "
                + "\(String(format: "%g", bound.allowedPercent))% of a kind later than it fell behind its own plan "
                + "(a backlog, not its timers) and the ratios are withheld",
            "beyond it: \(runway); \(nio)",
        ]
    }

    package var passedClause: String { "no event early, lost or unexpected" }
    package var regressedClause: String { "no event early, lost or unexpected" }

    /// The event table: a header, then one row per kind (shared with `runway bench --processes`).
    package static func eventTable(_ rows: [(String, Events)]) -> [String] {
        var lines = [
            self.row([
                "lateness in us", "expected", "count", "early", "lost", "unexp.", "p50", "p90", "p99", "p99.9", "max",
                "per s",
            ])
        ]
        for (name, events) in rows {
            let quantiles = events.latenessNanoseconds?.values.map(microseconds) ?? Array(repeating: "-", count: 5)
            lines.append(
                self.row(
                    [name] + [events.expected, events.count, events.early, events.lost, events.unexpected].map(grouped)
                        + quantiles + [perSecond(events.perSecond)]
                )
            )
        }
        return lines
    }

    /// The first column left-aligned in 20 characters, the others right-aligned in 9.
    package static func row(_ cells: [String]) -> String {
        guard let first = cells.first else { return "" }
        let name = first.padding(toLength: max(20, first.count), withPad: " ", startingAt: 0)
        return name + cells.dropFirst().map { String(repeating: " ", count: max(1, 9 - $0.count)) + $0 }.joined()
    }
}

/// `12,345`.
func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (offset, digit) in digits.enumerated() {
        if offset > 0 && (digits.count - offset) % 3 == 0 { result.append(",") }
        result.append(digit)
    }
    return value < 0 ? "-" + result : result
}

/// `12.3` microseconds from nanoseconds.
func microseconds(_ nanoseconds: UInt64) -> String {
    String(format: "%.1f", Double(nanoseconds) / 1_000)
}

func seconds(_ value: Double) -> String {
    String(format: "%.3gs", value)
}

func perSecond(_ value: Double?) -> String {
    guard let value else { return "-" }
    return grouped(Int(value.rounded()))
}

private func megabytes(_ bytes: UInt64?) -> String {
    guard let bytes else { return "?" }
    return String(format: "%.1f MB", Double(bytes) / 1_000_000)
}

func utilisation(_ loop: LoopUtilisation?) -> String {
    guard let loop else { return "?" }
    return String(format: "%.1f%% of %.2fs", loop.busyFraction * 100, loop.wallSeconds)
}
