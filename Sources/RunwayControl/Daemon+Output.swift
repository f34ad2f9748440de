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

/// Standard output, unbuffered: daemon lines interleave in order with the timeline's.
func printOut(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
