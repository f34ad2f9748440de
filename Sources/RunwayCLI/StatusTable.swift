import Foundation
import RunwayControl

/// The status table of `runway status` (K2): one row per app, fitted to a width (`TerminalWidth`: 100 columns
/// unless the terminal or `COLUMNS` says otherwise). A state word is never cut; when the table is too wide, the
/// other columns are abbreviated first: the tasks, then the detail after the state word (reasons, a pending
/// restart) and the app's name, a character at a time from the wider of the two. Numbers and times are never cut,
/// so a terminal narrower than the narrowest table wraps it (Decision 281). `--json` and `runway status APP` have
/// every field whole.
///
/// Pure functions of the reply and the width; any thread.
enum StatusTable {
    static let header = ["APP", "STATE", "PID", "RESTARTS", "AGE", "IN STATE", "BUDGET", "TASKS"]
    /// The columns abbreviated while the table is wider than its width: TASKS first, then STATE and APP together.
    static let tasksColumn = 7
    static let stateColumn = 1
    static let appColumn = 0
    /// Between two columns.
    static let gap = "  "

    static func render(_ reply: ControlReply, width: Int = TerminalWidth.columns()) -> String {
        var lines: [String] = []
        if let daemon = reply.daemon { lines.append(Self.daemonLine(daemon, width: width)) }
        let apps = reply.apps ?? []
        lines += Self.lay(apps.map(Self.row), width: width)
        // W4, W7: wake-ups not yet completed and pending scheduled refreshes, one line per app that has any.
        for app in apps {
            var notes: [String] = []
            if let wakes = app.outstandingWakes { notes.append("\(wakes) wake-up(s) not completed") }
            if let refresh = app.nextRefreshAtSeconds { notes.append("next refresh at t=" + seconds(refresh)) }
            guard !notes.isEmpty else { continue }
            let text = ": " + notes.joined(separator: ", ")
            lines.append(StatusCell.name(app.app).fitted(to: width - text.count) + text)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The rows under the header, each cell cut to its column's width and padded to it (the last one not padded).
    static func lay(_ rows: [[StatusCell]], width: Int) -> [String] {
        let table = [Self.header.map(StatusCell.fixed)] + rows
        let columns = Self.header.indices
        var widths = columns.map { column in table.map { $0[column].text.count }.max() ?? 0 }
        let minimums = columns.map { column in table.map { $0[column].minimum }.max() ?? 0 }
        var excess = widths.reduce(0, +) + Self.gap.count * (widths.count - 1) - width
        // TASKS first, whole; then a character at a time from the wider of STATE and APP (the name where equal).
        let tasksCut = min(max(0, excess), widths[Self.tasksColumn] - minimums[Self.tasksColumn])
        widths[Self.tasksColumn] -= tasksCut
        excess -= tasksCut
        while excess > 0 {
            let cuttable = [Self.stateColumn, Self.appColumn].filter { widths[$0] > minimums[$0] }
            guard let column = cuttable.max(by: { widths[$0] < widths[$1] }) else { break }
            widths[column] -= 1
            excess -= 1
        }
        // A STATE too narrow for `word (…)` shows the word alone: the name gets the characters left over.
        let used = table.map { $0[Self.stateColumn].fitted(to: widths[Self.stateColumn]).count }.max() ?? 0
        let appNatural = table.map { $0[Self.appColumn].text.count }.max() ?? 0
        let freed = min(widths[Self.stateColumn] - used, appNatural - widths[Self.appColumn])
        if freed > 0 {
            widths[Self.stateColumn] -= freed
            widths[Self.appColumn] += freed
        }
        return table.map { row in
            row.enumerated().map { column, cell in
                let text = cell.fitted(to: widths[column])
                guard column < row.count - 1 else { return text }
                return text + String(repeating: " ", count: max(0, widths[column] - text.count))
            }.joined(separator: Self.gap)
        }
    }

    /// One app's cells, in `header` order.
    static func row(_ app: AppStatusPayload) -> [StatusCell] {
        let budget: String
        switch (app.budgetRemainingSeconds, app.state) {
        case _ where app.terminating != nil: budget = "-"
        case (_, "notRunning"), (_, "suspended"): budget = "-"
        case (nil, _): budget = "unlimited"
        case (let left?, _): budget = Self.duration(left)
        }
        // A tab, which terminalSafe keeps for log lines, would move the columns: the table shows it as `\x09`.
        let tasks = app.tasks.map {
            let name = terminalSafe($0.name).replacingOccurrences(of: "\t", with: "\\x09")
            return StatusCell.Task(id: $0.id, name: name, age: Self.duration($0.ageSeconds))
        }
        return [
            .name(app.app), Self.stateCell(app), .fixed(app.pid.map(String.init) ?? "-"),
            .fixed(String(app.restarts ?? 0)), .fixed(app.ageSeconds.map(Self.duration) ?? "-"),
            .fixed(Self.duration(app.timeInStateSeconds)), .fixed(budget),
            .tasks(tasks, total: app.tasksTotal ?? app.tasks.count),
        ]
    }

    /// The STATE cell: the word is the app's state, `terminating` while a termination runs (whatever the state it
    /// runs from) or `crash-looping` for an app not running that waits for a restart at `RestartBackoffLimit`; the
    /// detail says why and what comes next.
    static func stateCell(_ app: AppStatusPayload) -> StatusCell {
        var head = app.state
        var details: [String] = []
        if let reason = app.terminating {
            head = "terminating"
            details.append("\(reason), from \(app.state)")
        } else if app.state == "notRunning", app.crashLooping == true {
            head = "crash-looping"
        }
        if app.state == "notRunning", let last = app.lastTermination { details.append("last: \(terminalSafe(last))") }
        // R2: a run that restored a preserved state says from which ending.
        if let restored = app.restoredFrom, app.state != "notRunning" { details.append("restored: \(restored)") }
        if app.state != "notRunning", app.crashLooping == true { details.append("crash-looping") }
        if let attempt = app.nextRestart {
            details.append("restart #\(attempt) in " + (app.nextRestartInSeconds.map(Self.duration) ?? "?"))
        }
        // The kernel has not confirmed the suspension (yet): cgroup.events `frozen 1`, or state `T`.
        if app.state == "suspended", app.suspension != nil, app.suspensionConfirmed != true {
            details.append("unconfirmed")
        }
        // P2: the kernel refused SIGKILL and no cgroup.kill reached the app: it still runs. First, so that a
        // narrow table keeps it.
        if app.killRefused == true { details.insert("kill refused, still running", at: 0) }
        return .state(head, detail: details.isEmpty ? nil : details.joined(separator: ", "))
    }

    /// `runway daemon pid P, config DIR, up U, socket PATH`, the configuration directory cut keeping its end when
    /// the line is wider than `width`. The socket is never cut: it says which daemon answered.
    static func daemonLine(_ daemon: DaemonInfo, width: Int) -> String {
        func line(_ config: String) -> String {
            "runway daemon pid \(daemon.pid), config \(config), up \(Self.duration(daemon.uptimeSeconds)), "
                + "socket \(daemon.socket)"
        }
        let excess = line(daemon.config).count - width
        guard excess > 0 else { return line(daemon.config) }
        return line(StatusCell.name(daemon.config).fitted(to: daemon.config.count - excess))
    }

    /// The TASKS field of `runway status APP`: `#id name (age)` of each task listed, then `+N more` when the
    /// daemon cut the list.
    static func tasks(_ app: AppStatusPayload) -> String {
        let more = max(0, (app.tasksTotal ?? app.tasks.count) - app.tasks.count)
        var cells = app.tasks.map { "#\($0.id) \(terminalSafe($0.name)) (\(seconds($0.ageSeconds)))" }
        if more > 0 { cells.append("+\(more) more") }
        return cells.isEmpty ? "-" : cells.joined(separator: ", ")
    }

    /// `12.3s`
    static func seconds(_ value: Double) -> String {
        String(format: "%.1fs", value)
    }

    /// A time of the table in at most 6 characters for anything under 100 days: `12.3s` under a minute, then
    /// `4m05s`, `3h07m`, `2d04h` (cut down, never rounded up).
    static func duration(_ value: Double) -> String {
        guard value.isFinite, value >= 60 else { return Self.seconds(value) }
        let whole = value >= Double(Int.max) ? Int.max : Int(value)
        func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
        if whole < 3_600 { return "\(whole / 60)m\(two(whole % 60))s" }
        if whole < 86_400 { return "\(whole / 3_600)h\(two(whole % 3_600 / 60))m" }
        return "\(whole / 86_400)d\(two(whole % 86_400 / 3_600))h"
    }
}
