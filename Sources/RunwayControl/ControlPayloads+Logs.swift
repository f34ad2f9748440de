// The payloads of the `logs` command (Docs/ControlProtocol.md): a ring of a process app's captured output, and
// the lines streamed to a follower.

import Runway
import RunwayProcesses

/// One captured line: `{"line": "...", "stream": "stdout", "time": "2026-11-23T12:10:41.123Z"}`.
package struct AppLogLinePayload: Codable, Hashable, Sendable {
    /// When Runway read the line: ISO 8601, UTC, milliseconds.
    package var time: String
    /// `stdout` or `stderr`.
    package var stream: String
    /// The line without its newline. Runway's own notes about the stream start with `[runway] `.
    package var line: String

    package init(time: String, stream: String, line: String) {
        self.time = time
        self.stream = stream
        self.line = line
    }

    init(_ line: AppLogLine) {
        self.init(time: line.time.iso8601, stream: line.stream.rawValue, line: line.text)
    }
}

/// The `logs` reply: the lines asked for, and what the ring dropped.
package struct AppLogsPayload: Codable, Hashable, Sendable {
    package var app: String
    /// `current` (the running or last run) or `previous` (the run before it).
    package var run: String
    /// Oldest first.
    package var lines: [AppLogLinePayload]
    /// Lines of this run dropped from the ring (oldest first) because a bound was reached, and their bytes.
    package var droppedLines: Int
    package var droppedBytes: Int
    /// The ring's bounds: `AppLogLineLimit`, `AppLogByteLimit`.
    package var lineLimit: Int
    package var byteLimit: Int
    /// True when log lines of the app follow this reply (`follow`).
    package var following: Bool?

    package init(
        app: String,
        run: String,
        lines: [AppLogLinePayload],
        droppedLines: Int,
        droppedBytes: Int,
        lineLimit: Int,
        byteLimit: Int,
        following: Bool? = nil
    ) {
        self.app = app
        self.run = run
        self.lines = lines
        self.droppedLines = droppedLines
        self.droppedBytes = droppedBytes
        self.lineLimit = lineLimit
        self.byteLimit = byteLimit
        self.following = following
    }
}

/// A line streamed to a `logs` follower: `{"v":1,"app":"com.example.notes","log":{...}}`.
package struct ControlLogLine: Codable, Hashable, Sendable {
    package var v = ControlProtocol.version
    package var app: String
    package var log: AppLogLinePayload
}
