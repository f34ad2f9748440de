import Foundation
import RunwayConfig

// The control socket's directory and the daemon's output helpers, out of Daemon.swift to keep it short.

extension Daemon {
    /// The default socket's directory is created and checked (`ControlSocketDirectory`: ours, 0700, not a
    /// symbolic link); for a path the operator chose, a missing parent is created with mode 0700.
    static func prepareDirectory(of path: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        if path == DaemonSettings.defaultControlSocketPath() {
            try ControlSocketDirectory.prepare(parent)
            return
        }
        guard !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) else { return }
        try FileManager.default.createDirectory(
            atPath: parent,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
    }
}

/// Standard output, through the same queue as the timeline's lines: they interleave in order, and a reader that
/// stops reading does not block the daemon (DaemonOutputStream).
func printOut(_ line: String) {
    DaemonOutputStream.standardOutput.write(line + "\n")
}

/// Standard error, through the same queue as the log's lines (DaemonOutputStream).
func printError(_ line: String) {
    DaemonOutputStream.standardError.write(line + "\n")
}
