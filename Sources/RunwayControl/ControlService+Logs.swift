import Runway
@_spi(Driver) import RunwayCore
import RunwayProcesses

// The `logs` command: a process app's captured stdout and stderr (`AppLogStore` in Runway), and `follow`, which
// streams the app's new lines to the connection. Loop thread only, like the rest of `ControlService`'s request
// handling. A follower is sent lines through the server's queue like any reply: one that reads too slowly is
// dropped at `ControlQueueByteLimit` (`slowReader`) without delaying anyone else.

extension ControlService {
    /// What one following connection asked for.
    struct LogFollow {
        var app: AppID
        var stream: AppLogStream?
    }

    /// The reply to `logs`; with `follow`, the connection is added to the followers.
    func logsReply(_ request: ControlRequest, app: AppID, connection: ControlSocketServer.ConnectionID) -> ControlReply
    {
        let id = request.id
        if let lines = request.lines, lines < 0 {
            return .failure("invalidRequest", "field 'lines': expected 0 or more, found \(lines)", id: id)
        }
        var stream: AppLogStream?
        if let name = request.stream {
            guard let chosen = AppLogStream(rawValue: name) else {
                return .failure("invalidRequest", "field 'stream': expected stdout or stderr, found '\(name)'", id: id)
            }
            stream = chosen
        }
        let previous = request.previous ?? false
        let follow = request.follow ?? false
        if previous, follow {
            return .failure(
                "invalidRequest",
                "fields 'previous' and 'follow': only the current run is followed",
                id: id
            )
        }
        guard let status = self.scheduler.status(of: app) else {
            return .failure("unknownApp", "unknownApp: no app '\(app)' is registered", id: id)
        }
        guard status.isProcess else {
            return .failure(
                "noOutput",
                "\(app) is an embedded app: it runs inside the daemon's process and has no stdout or stderr of its "
                    + "own (its output is the daemon's)",
                id: id
            )
        }
        guard let ring = self.scheduler.appLogRing(of: app, previous: previous) else {
            return .failure("noPreviousRun", "\(app) has not been started twice: there is no previous run", id: id)
        }
        var lines = ring.all.filter { stream == nil || $0.stream == stream }
        if let count = request.lines { lines = Array(lines.suffix(count)) }
        var reply = ControlReply(id: id, ok: true)
        reply.logs = AppLogsPayload(
            app: app.bundleIdentifier,
            run: previous ? "previous" : "current",
            lines: lines.map(AppLogLinePayload.init),
            droppedLines: ring.droppedLines,
            droppedBytes: ring.droppedBytes,
            lineLimit: ring.lineLimit,
            byteLimit: ring.byteLimit,
            following: follow ? true : nil
        )
        if follow { self.logFollowers[connection] = LogFollow(app: app, stream: stream) }
        return reply
    }

    /// The observer of every app's new lines: each follower of `app` (and of the line's stream) is sent it.
    func forwardLog(_ app: AppID, _ line: AppLogLine) {
        guard let server = self.server, !self.logFollowers.isEmpty else { return }
        var encoded: [UInt8]?
        for (connection, follow) in self.logFollowers where follow.app == app {
            if let wanted = follow.stream, wanted != line.stream { continue }
            let bytes =
                encoded
                ?? ControlProtocol.encodedLine(
                    ControlLogLine(app: app.bundleIdentifier, log: AppLogLinePayload(line))
                )
            encoded = bytes
            server.send(bytes, to: connection)
        }
    }
}
