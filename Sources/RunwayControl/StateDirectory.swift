import Foundation
import RunwayConfig

/// Where the daemon keeps its process state file (`ProcessOptions.stateFile`, Docs/Security.md): the pids and
/// start times of every process it tracks, which a restarted daemon reads to end what a killed one left.
package enum StateDirectory {
    /// The directory used without `--state-directory`: the directory of the default control socket
    /// (`DaemonSettings.defaultControlSocketPath`), which the daemon creates with mode 0700 and checks:
    /// `/run/runway` for root, `$XDG_RUNTIME_DIR/runway` for another user when that variable names an absolute
    /// path, else `/tmp/runway-<uid>`. The supervisor creates it (0700) if it is still missing and refuses it if
    /// another user owns it or can write it.
    ///
    /// - Parameters:
    ///   - uid: The user the daemon runs as.
    ///   - environment: The daemon's environment (for `XDG_RUNTIME_DIR`).
    package static func defaultPath(uid: UInt32, environment: [String: String]) -> String {
        let socket = DaemonSettings.defaultControlSocketPath(uid: uid, runtimeDirectory: environment["XDG_RUNTIME_DIR"])
        return (socket as NSString).deletingLastPathComponent
    }

    /// The state file of the daemon serving `socket`, in `directory`: one per control socket, so that two
    /// daemons on two sockets never share one. The name is the socket's path with `/` as `_` (cut to 200
    /// bytes) and a hash of the whole path, e.g. `run_runway_control.sock-1a2b3c4d.processes`.
    package static func stateFile(directory: String, socket: String) -> String {
        var name = String(socket.map { $0 == "/" ? "_" : $0 }.drop(while: { $0 == "_" }))
        if name.utf8.count > 200 { name = String(decoding: name.utf8.prefix(200), as: UTF8.self) }
        // FNV-1a, 32 bits: stable across runs (Swift's Hasher is seeded per process).
        var hash: UInt32 = 2_166_136_261
        for byte in socket.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let hex = String(hash, radix: 16)
        return "\(directory)/\(name)-\(String(repeating: "0", count: 8 - hex.count))\(hex).processes"
    }

    /// The run history of the daemon serving `socket` (RunHistoryFile.swift): the state file's name with
    /// `.history.json` for `.processes`, in the same directory.
    package static func historyFile(directory: String, socket: String) -> String {
        String(self.stateFile(directory: directory, socket: socket).dropLast(".processes".count)) + ".history.json"
    }

    /// The preserved states of the daemon serving `socket` (PreservedStateStore.swift): a directory named like the
    /// state file with `.state` for `.processes`, in the same directory.
    package static func preservedStateDirectory(directory: String, socket: String) -> String {
        String(self.stateFile(directory: directory, socket: socket).dropLast(".processes".count)) + ".state"
    }
}
