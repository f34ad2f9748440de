import ArgumentParser
import RunwayControl

extension StatusCommand {
    /// A plain `runway status` of a fleet larger than this prints the summary and how to list apps, instead of a
    /// table of every app (one request per `pageLimit` apps); `--all` asks for the table whatever the size.
    static let tableAppLimit = 1_000

    /// `--summary`, or a plain `runway status` of more than `tableAppLimit` apps: the summary (O(1) for the
    /// daemon) printed, and true. False when the table is to be shown: not a plain status, a small fleet, or a
    /// daemon that sends no summary. One request.
    func printedSummary(on client: ControlClient) throws -> Bool {
        let plain = self.app == nil && self.state == nil && self.pattern == nil && self.limit == nil && !self.all
        guard self.summary || (plain && !self.json) else { return false }
        let reply = try send(ControlRequest(command: "status", summary: true), on: client)
        guard let summary = reply.summary, self.summary || summary.apps > Self.tableAppLimit else { return false }
        if self.json {
            writeOut(self.jsonText(reply) + "\n")
            return true
        }
        var text = StatusSummaryText.render(reply)
        if !self.summary {
            text +=
                "\(summary.apps) apps, more than \(Self.tableAppLimit): the summary instead of a table. List some "
                + "with --state S, --app PATTERN or --limit N (then --after APP), or every one with --all.\n"
        }
        writeOut(text)
        return true
    }
}

/// `runway status --summary` as text.
enum StatusSummaryText {
    static func render(_ reply: ControlReply) -> String {
        var lines: [String] = []
        if let daemon = reply.daemon {
            lines.append(
                "runway daemon pid \(daemon.pid), config \(daemon.config), up "
                    + "\(StatusTable.seconds(daemon.uptimeSeconds)), socket \(daemon.socket)"
            )
        }
        guard let summary = reply.summary else { return lines.joined(separator: "\n") + "\n" }
        let states = ["notRunning", "inactive", "active", "background", "suspended"]
        lines.append(
            "\(summary.apps) apps: " + states.map { "\(summary.inState[$0] ?? 0) \($0)" }.joined(separator: ", ")
        )
        lines.append(
            "running \(summary.running), tasks \(summary.tasks), crash-looping \(summary.crashLooping), restarts "
                + "\(summary.restarts), budget expirations \(summary.budgetExpirations) "
                + "(\(summary.budgetOverruns) overruns)"
        )
        return lines.joined(separator: "\n") + "\n"
    }
}
