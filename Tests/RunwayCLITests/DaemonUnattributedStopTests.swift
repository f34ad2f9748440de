import CLibUV
import Foundation
import RunwayControl
@_spi(Processes) import RunwayProcesses
import Testing

/// A real daemon in signal mode whose app's processes double-fork out of its session with `RUNWAY_APP` cleared:
/// unattributed, they are stopped with no app, and a clean stop ends and reaps them.
@Suite("Daemon stop: unattributed processes", .serialized)
struct DaemonUnattributedStopTests {
    @Test("P4: a clean stop of the daemon kills and reaps the processes no app claims")
    func P4_cleanStopEndsUnattributedProcesses() throws {
        let app = "com.test.scrubbed\(UUID().uuidString.prefix(6).lowercased())"
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("runway-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: files) }
        let escaped = files + "/escaped"
        let script =
            "i=0; while [ $i -lt 3 ]; do setsid env -i sh -c 'sleep 1000 & echo $! >> \(escaped)' & i=$((i+1)); done; "
            + "trap 'exit 0' TERM; while :; do sleep 0.05; done"
        let daemon = try DaemonProcess(
            apps: [
                app: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                    + "<string>\(script.xmlEscaped)</string></array>"
            ],
            settings: "<key>SuspensionMechanism</key><string>signal</string>"
        )
        defer { daemon.close() }
        _ = try daemon.cli("launch", app)
        let pid = daemon.process.processIdentifier
        var pids: [Int32] = []
        try waitUntil("the escaped processes, re-parented to the daemon\n\(daemon.output)") {
            pids = PidFiles.pids(escaped)
            return pids.count == 3 && pids.allSatisfy { Self.parent(of: $0) == pid }
        }
        #expect(try daemon.stop() == 0)
        let survivors = pids.filter(PidFiles.isAlive)
        #expect(survivors.isEmpty, "still alive after the stop: \(survivors)\n\(daemon.output)")
        for pid in survivors { kill(pid, SIGKILL) }
    }

    static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }
}
