import Foundation
import RunwayControl

/// `runway status APP` without `--json`: one app, described field by field (like `kubectl describe`), with its
/// pending restart, its wake-ups not completed and pending refresh (W6, W7), and its last runs.
enum StatusDescribe {
    static func render(_ reply: ControlReply) -> String {
        guard let app = reply.apps?.first else { return StatusTable.render(reply) }
        var lines: [String] = [app.app]
        func field(_ name: String, _ value: String) {
            lines.append("  " + (name + ":").padding(toLength: 15, withPad: " ", startingAt: 0) + value)
        }
        var state = app.state
        if let reason = app.terminating {
            // P2: the kernel refused SIGKILL and no cgroup.kill reached the app.
            state += " (terminating: \(reason)" + (app.killRefused == true ? "; kill refused, still running)" : ")")
        }
        if app.state == "notRunning", let last = app.lastTermination { state += " (last: \(last))" }
        field("State", state)
        if let restored = app.restoredFrom, app.state != "notRunning" {
            field("Restored", "yes (last run: \(restored))")
        }
        if app.preservedState == true || app.lastRunEnding != nil {
            let stored = app.preservedState == true ? "stored" : "none"
            field("Saved state", stored + (app.lastRunEnding.map { "; last run: \($0)" } ?? ""))
        }
        field("Kind", app.kind)
        // Process apps: whether the scheduler's suspension and kill hold against the app (Docs/Security.md).
        if let contained = app.contained {
            field("Contained", contained ? "yes" : "no (\(app.notContainedReason ?? "no reason given"))")
        }
        field("PID", app.pid.map(String.init) ?? "-")
        // Process apps: how the app is suspended, and whether the kernel confirmed the last suspend or resume.
        if let mechanism = app.suspension {
            field("Suspension", mechanism + (app.suspensionConfirmed == true ? " (confirmed)" : " (not confirmed)"))
        }
        if let left = app.budgetRemainingSeconds {
            let deadline = app.deadlineAtSeconds.map { ", deadline t=" + StatusTable.seconds($0) } ?? ""
            field("Budget", StatusTable.seconds(left) + " left" + deadline)
        }
        field("In state", StatusTable.seconds(app.timeInStateSeconds))
        field("Age", app.ageSeconds.map(StatusTable.seconds) ?? "- (not running)")
        let failures = app.consecutiveFailures ?? 0
        field("Restarts", "\(app.restarts ?? 0)" + (failures > 0 ? " (\(failures) consecutive failures)" : ""))
        field("Crash loop", app.crashLooping == true ? "yes (CrashLoopThreshold reached; retrying at the limit)" : "no")
        if let attempt = app.nextRestart {
            let wall = app.nextRestartWallTime ?? "?"
            let delay = app.nextRestartInSeconds.map(StatusTable.seconds) ?? "?"
            field("Next restart", "#\(attempt) at \(wall) (in \(delay))")
        } else {
            field("Next restart", "none")
        }
        field("Tasks", StatusTable.tasks(app))
        // W6, W7: what the table prints below its rows.
        if let wakes = app.outstandingWakes { field("Wake-ups", "\(wakes) not completed") }
        if let refresh = app.nextRefreshAtSeconds { field("Next refresh", "t=" + StatusTable.seconds(refresh)) }
        let runs = app.history ?? []
        lines.append("  Last runs (\(runs.count), newest first):")
        if runs.isEmpty { lines.append("    none") }
        for run in runs.reversed() {
            let end = run.ended ?? "running"
            var outcome = run.reason ?? "-"
            if let status = run.exitStatus { outcome += ", status \(status)" }
            if let signal = run.signal { outcome += ", signal \(signal)" }
            lines.append("    \(run.started) -> \(end)  \(outcome)  (restarts \(run.restarts))")
            for line in run.lastOutput { lines.append("      | \(terminalSafe(line))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What the state cell of the table adds for a pending restart: ` restart #3 in 0.8s`, crash-looping or not.
    static func restartNote(_ app: AppStatusPayload) -> String {
        guard let attempt = app.nextRestart else { return "" }
        let delay = app.nextRestartInSeconds.map(StatusTable.seconds) ?? "?"
        return " restart #\(attempt) in \(delay)" + (app.crashLooping == true ? ", crash-looping" : "")
    }
}
