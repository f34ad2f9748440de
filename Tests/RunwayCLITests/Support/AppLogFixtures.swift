import Foundation

/// Apps that print, the stamp `runway logs` puts on a line, and directories for output files.
enum AppLogFixtures {
    /// `ProgramArguments` running `script` with /bin/sh.
    static func shell(_ script: String, extra: String = "") -> String {
        "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
            + "<string>\(script.xmlEscaped)</string></array>" + extra
    }

    /// `2026-11-23T12:10:41.123Z stdout text`
    static var stamped: Regex<(Substring, Substring, Substring, Substring)> {
        #/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (stdout|stderr) (.*)$/#
    }

    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("runway-logs-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

extension ISO8601DateFormatter {
    /// A new formatter for `2026-11-23T12:10:41.123Z` (one per use: formatters are not shared across tests).
    static var withMilliseconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
