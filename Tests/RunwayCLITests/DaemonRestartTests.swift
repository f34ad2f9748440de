import CRunwayProcess
import Foundation
import RunwayControl
@_spi(Processes) import RunwayProcesses
import Testing

/// After `kill -9` of a real daemon, a restarted daemon ends every process the killed one
/// left (stopped ones and a double-forked one included) before it serves, so `launch` starts exactly one copy.
@Suite("Daemon restart after kill -9", .serialized)
struct DaemonRestartTests {
    /// The cgroup v2 freezer is usable when running as root with a read-write cgroup2 mount (as
    /// `CgroupHierarchy` decides; the daemon would fall back or fail otherwise).
    static let freezerUsable: Bool = {
        guard getuid() == 0, let mounts = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else {
            return false
        }
        return mounts.split(separator: "\n").contains { $0.contains(" - cgroup2 ") && $0.contains(" rw,") }
    }()
    static let mechanisms = freezerUsable ? ["signal", "freezer"] : ["signal"]

    @Test("P2: a daemon restarted after kill -9 ends what the killed one left", arguments: mechanisms)
    func P2_restartedDaemonEndsWhatAKilledOneLeft(mechanism: String) throws {
        let app = "com.test.restart\(UUID().uuidString.prefix(6).lowercased())"
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("runway-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: files) }
        let mains = files + "/mains"
        let children = files + "/children"
        // The main process, a child in its group, and a grandchild that double-forks out of the session and
        // ignores SIGTERM (re-parented to the daemon, a child subreaper).
        let script =
            "echo $$ >> \(mains); trap 'exit 0' TERM; sleep 1000 & echo $! >> \(children); "
            + "setsid sh -c \"(trap '' TERM; exec sleep 1000) & echo \\$! >> \(children)\" & "
            + "while :; do sleep 0.05; done"
        let first = try DaemonProcess(
            apps: [
                app: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                    + "<string>\(script.xmlEscaped)</string></array>"
            ],
            settings: "<key>SuspensionMechanism</key><string>\(mechanism)</string>"
        )
        defer { if first.process.isRunning { kill(first.process.processIdentifier, SIGKILL) } }
        _ = try first.cli("launch", app)
        try waitUntil("the app's processes\n\(first.output)") {
            PidFiles.pids(mains).count == 1 && PidFiles.pids(children).count == 2
        }
        _ = try first.cli("home", app)
        try waitUntil("the suspension confirmed\n\(first.output)") {
            try first.status(app).suspensionConfirmed == true
        }
        let left = PidFiles.pids(mains) + PidFiles.pids(children)
        // The state file is rewritten on the loop turn after a change: wait until it lists every process (on
        // today's main there is no state file, and this wait gives up after its timeout).
        _ = try? waitUntil("the state file", timeout: .seconds(5)) {
            let listed = Self.stateFileText(first.stateDirectory)
            return left.allSatisfy { listed.contains("\"pid\":\($0),") }
        }
        let daemon = first.process.processIdentifier
        kill(daemon, SIGKILL)
        // Not Process.waitUntilExit: Foundation learns of the exit when every copy of a socket it gave the child
        // is closed, which a child that inherited it never does.
        try waitUntil("the killed daemon to exit") { !PidFiles.isAlive(daemon) }
        // Its main thread shows Z before its other threads have closed its descriptors: until then, its socket
        // still takes connections, and the new daemon's would seem up before it is.
        try waitUntil("the killed daemon's socket to close") { (try? first.client()) == nil }
        #expect(left.allSatisfy(PidFiles.isAlive), "kill -9 of the daemon should leave its apps' processes")

        let second = try DaemonProcess(restarting: first)
        defer { second.close() }
        // The socket serves, so whatever the first daemon left is already ended.
        let survivors = left.filter(PidFiles.isAlive)
        #expect(survivors.isEmpty, "still alive after the restart: \(survivors)\n\(second.output)")
        #expect(second.output.contains("left by a previous daemon"), "\(second.output)")

        _ = try second.cli("launch", app)
        try waitUntil("the second launch\n\(second.output)") { PidFiles.pids(mains).count == 2 }
        let running = PidFiles.pids(mains).filter(PidFiles.isAlive)
        #expect(running.count == 1, "running copies of the app: \(running)")
        #expect(try second.stop() == 0)
        // The run history stays beside it on purpose; only the process state file goes.
        let stateFiles = ((try? FileManager.default.contentsOfDirectory(atPath: second.stateDirectory)) ?? [])
            .filter { !$0.hasSuffix(".history.json") }
        #expect(stateFiles.isEmpty, "a clean stop removes the state file: \(stateFiles)")
        for pid in left { _ = runway_reap_nonblocking(pid) }  // Zombies of this process, if it is a subreaper.
    }

    /// Every state file in `directory`, concatenated.
    static func stateFileText(_ directory: String) -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }.joined()
    }
}
