import Foundation
import RunwayControl
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A root daemon without CAP_KILL (as a DaemonSet that drops it would run it) cannot signal an app that runs as
/// `nobody`: every such signal fails with EPERM. None may pass in silence, and the daemon may not claim what it
/// could not do: a refused SIGSTOP leaves the suspension unconfirmed, a refused SIGKILL without a cgroup leaves the
/// app `terminating` with its processes, and a freezer app is still ended through `cgroup.kill`.
@Suite("Signals the kernel refuses, in a real daemon without CAP_KILL", .serialized)
struct RefusedSignalDaemonTests {
    static let app = "com.example.unsignalled"
    /// Root with the DaemonSet's capabilities but KILL.
    static let withoutKill = [
        setpriv, "--bounding-set", "-all,+setuid,+setgid,+sys_resource,+dac_override", "--inh-caps=-all",
    ]
    static let program =
        "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
        + "<string>trap 'exit 0' TERM; while :; do sleep 0.05; done</string></array>"
        + "<key>UserName</key><string>nobody</string>"

    static func daemon(mechanism: String) throws -> DaemonProcess {
        try DaemonProcess(
            apps: [Self.app: Self.program],
            settings: "<key>SuspensionMechanism</key><string>\(mechanism)</string>",
            arguments: ["--metrics-address", "127.0.0.1:0"],
            launcher: Self.withoutKill
        )
    }

    /// A daemon with `mechanism` and the app launched; the caller closes the daemon and kills the app's group.
    static func launched(mechanism: String) throws -> (daemon: DaemonProcess, pid: Int32) {
        let daemon = try Self.daemon(mechanism: mechanism)
        do {
            #expect(try daemon.cli("launch", Self.app).status == 0)
            return (daemon, try #require(try daemon.status(Self.app).pid))
        } catch {
            daemon.close()
            throw error
        }
    }

    /// The state letter of /proc/PID/stat, or nil when the process is gone.
    static func state(_ pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(close, offsetBy: 2)]
    }

    @Test(.enabled(if: canSwitchUser, "needs root and setpriv"))
    func P1_refusedStopIsLoggedCountedAndLeavesTheSuspensionUnconfirmed() throws {
        let (daemon, pid) = try Self.launched(mechanism: "signal")
        defer {
            kill(-pid, SIGKILL)
            daemon.close()
        }
        let port = try metricsPort(daemon)
        let home = try daemon.cli("home", Self.app)
        #expect(home.status == 0)
        #expect(home.stdout.contains("suspended (unconfirmed: the kernel refused the signal"), "\(home)")
        try waitUntil("the refused SIGSTOP in the log\n\(daemon.output)") {
            daemon.output.contains("signal refused by the kernel")
        }
        let line = try #require(daemon.output.split(separator: "\n").first { $0.contains("signal refused") })
        for word in [Self.app, "pid=\(pid)", "SIGSTOP", "errno=1", "CAP_KILL"] {
            #expect(line.contains(word), "\(word) missing from: \(line)")
        }
        #expect(daemon.output.contains("suspension not confirmed"), "\(daemon.output)")
        let status = try daemon.status(Self.app)
        #expect(status.state == "suspended" && status.suspensionConfirmed == false, "\(status)")
        #expect(Self.state(pid) != "T", "the app was stopped after all")
        let table = try daemon.cli("status").stdout
        #expect(table.contains("unconfirmed"), "\(table)")
        // Counted at once: the kernel's refusal is not waited for as a slow stop would be.
        let text = try httpGet(port: port).body
        #expect((sample(text, "runway_signals_refused_total{signal=\"SIGSTOP\"}") ?? 0) >= 1, "\(text)")
        #expect(sample(text, "runway_suspensions_unconfirmed_total") == 1, "\(text)")
    }

    @Test(.enabled(if: canSwitchUser, "needs root and setpriv"))
    func P2_refusedKillWithoutACgroupIsLoggedAndLeavesTheAppTerminating() throws {
        let (daemon, pid) = try Self.launched(mechanism: "signal")
        defer {
            kill(-pid, SIGKILL)
            daemon.close()
        }
        let port = try metricsPort(daemon)
        #expect(try daemon.cli("terminate", Self.app).status == 0)
        // SIGTERM is refused, then SIGKILL at the end of TerminationGrace (1 s).
        try waitUntil("the refused kill in the log\n\(daemon.output)") { daemon.output.contains("cannot kill the app") }
        #expect(daemon.output.contains("SIGTERM"), "\(daemon.output)")
        let status = try daemon.status(Self.app)
        #expect(status.terminating != nil && status.state != "notRunning", "\(status)")
        #expect(status.killRefused == true, "\(status)")
        #expect(PidFiles.isAlive(pid))
        let described = try daemon.cli("status", Self.app).stdout
        #expect(described.contains("(terminating: requested; kill refused, still running)"), "\(described)")
        let text = try httpGet(port: port).body
        #expect((sample(text, "runway_signals_refused_total{signal=\"SIGTERM\"}") ?? 0) >= 1, "\(text)")
        #expect((sample(text, "runway_signals_refused_total{signal=\"SIGKILL\"}") ?? 0) >= 1, "\(text)")
        // Once something that may signal it ends the app, the termination completes.
        kill(-pid, SIGKILL)
        try waitUntil("the app to be notRunning\n\(daemon.output)") {
            try daemon.status(Self.app).state == "notRunning"
        }
    }

    /// P4 is bounded: the stop does not wait for an app no wait would end; it says that it leaves it running.
    @Test(.enabled(if: canSwitchUser, "needs root and setpriv"))
    func P4_daemonStopDoesNotWaitForAnAppItCannotKill() throws {
        let (daemon, pid) = try Self.launched(mechanism: "signal")
        defer {
            kill(-pid, SIGKILL)
            daemon.close()
        }
        #expect(try daemon.stop() == 0, "\(daemon.output)")
        #expect(daemon.output.contains("cannot kill the app"), "\(daemon.output)")
        #expect(daemon.output.contains("stopping with apps the daemon could not kill"), "\(daemon.output)")
        #expect(PidFiles.isAlive(pid))
    }

    @Test(.enabled(if: canSwitchUser && ContainedDaemonTests.cgroupDirectory != nil, "needs root and cgroup v2"))
    func P2_refusedSignalsStillEndAFreezerAppThroughCgroupKill() throws {
        let (daemon, pid) = try Self.launched(mechanism: "freezer")
        defer {
            kill(-pid, SIGKILL)
            daemon.close()
        }
        #expect(try daemon.cli("terminate", Self.app).status == 0)
        try waitUntil("the app to be notRunning\n\(daemon.output)") {
            try daemon.status(Self.app).state == "notRunning"
        }
        #expect(!PidFiles.isAlive(pid))
        let line = daemon.output.split(separator: "\n").first { $0.contains("signal refused") }
        #expect(line?.contains("SIGTERM") == true, "\(daemon.output)")
        #expect(!daemon.output.contains("cannot kill the app"), "\(daemon.output)")
    }

    /// P2 for an app of another user: a process that double-forked out of its session is the daemon's child
    /// (a subreaper), attributed by `RUNWAY_APP` in its environment, which the daemon reads without
    /// CAP_SYS_PTRACE (not in the DaemonSet's set, nor the systemd unit's); it dies with the app.
    @Test(.enabled(if: canSwitchUser, "needs root and setpriv"))
    func P2_escapedProcessOfAnotherUsersAppIsEndedWithItWithoutSysPtrace() throws {
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("runway-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: files) }
        #expect(chmod(files, 0o777) == 0)
        let escaped = files + "/escaped"
        let script =
            "trap 'exit 0' TERM; setsid sh -c \"sleep 1000 & echo \\$! > \(escaped)\" & "
            + "while :; do sleep 0.05; done"
        let daemon = try DaemonProcess(
            apps: [
                Self.app: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                    + "<string>\(script.xmlEscaped)</string></array><key>UserName</key><string>nobody</string>"
            ],
            settings: "<key>SuspensionMechanism</key><string>signal</string>",
            // The DaemonSet's capabilities (Deploy/kubernetes/runway.yaml).
            launcher: [
                setpriv, "--bounding-set", "-all,+setuid,+setgid,+kill,+sys_resource,+dac_override",
                "--inh-caps=-all",
            ]
        )
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.app).status == 0)
        try waitUntil("the escaped process\n\(daemon.output)") { PidFiles.pids(escaped).count == 1 }
        let pid = try #require(PidFiles.pids(escaped).first)
        defer { kill(pid, SIGKILL) }
        #expect(try daemon.cli("terminate", Self.app).status == 0)
        try waitUntil("the app to be notRunning\n\(daemon.output)") {
            try daemon.status(Self.app).state == "notRunning"
        }
        try waitUntil("the escaped process to end with its app\n\(daemon.output)", timeout: .seconds(5)) {
            !PidFiles.isAlive(pid)
        }
    }
}
