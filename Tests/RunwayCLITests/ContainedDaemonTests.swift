import CRunwayProcess
import Foundation
import RunwayControl
@_spi(Processes) import RunwayProcesses
import RunwayTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// P1 containment through a real `runway run` as root in freezer mode: `status` and the metrics say which apps are
/// contained (a user of their own) and which are not (the daemon's user), and no cgroup directory of the daemon is
/// left after a clean stop, or after kill -9 and the next daemon's start, although an app of the daemon's user made
/// cgroups below its own.
@Suite("Contained apps in a real daemon", .serialized)
struct ContainedDaemonTests {
    static let contained = "com.example.contained"
    static let own = "com.example.own"

    /// The cgroup v2 directory this process (and so a daemon it starts) is in, when it is root and may make cgroups.
    static let cgroupDirectory: String? = {
        guard geteuid() == 0, let mounts = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8),
            let membership = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
            let line = membership.split(separator: "\n").first(where: { $0.hasPrefix("0::") }),
            let mount = mounts.split(separator: "\n").first(where: { $0.contains(" - cgroup2 ") && $0.contains(" rw") })
        else { return nil }
        let fields = mount.split(separator: " ")
        let relative = String(line.dropFirst(3))
        let directory = String(fields[4]) + (relative == "/" ? "" : relative)
        return access(directory, W_OK) == 0 ? directory : nil
    }()

    /// The two apps: one as nobody, one as the daemon's user that makes two nested cgroups below its own (found
    /// through the cgroup.procs that lists it: its /proc/self/cgroup shows only `0::/`), reports it and becomes one
    /// process (after a kill -9 of the daemon it is re-parented to this process, which reaps it).
    static func apps(cgroups: String, marker: String) -> [String: String] {
        let idle = "trap 'exit 0' TERM; while :; do sleep 0.05; done"
        let maker =
            "cg=$(dirname $(grep -lx $$ \(cgroups)/runway.*/\(Self.own)/cgroup.procs)); "
            + "mkdir -p $cg/workers/inner && touch \(marker); exec sleep 1000"
        func program(_ script: String) -> String {
            "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                + "<string>\(script.xmlEscaped)</string></array>"
        }
        return [
            Self.contained: program(idle) + "<key>UserName</key><string>nobody</string>",
            Self.own: program(maker),
        ]
    }

    static let settings = "<key>SuspensionMechanism</key><string>freezer</string>"

    @Test("P6: status and metrics say which apps are contained; a stop leaves no cgroup directory")
    func P6_statusSaysWhichAppsAreContainedAndAStopLeavesNoCgroup() throws {
        guard let cgroups = Self.cgroupDirectory else { return }
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("runway-\(UUID().uuidString)").path
        defer { unlink(marker) }
        let daemon = try DaemonProcess(
            apps: Self.apps(cgroups: cgroups, marker: marker),
            // runway_app_contained is a per-app series of the `all` level.
            settings: Self.settings + "<key>MetricsPerApp</key><string>all</string>",
            arguments: ["--metrics-address", "127.0.0.1:0"]
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        let directory = "\(cgroups)/runway.\(daemon.process.processIdentifier)"
        #expect(try daemon.cli("launch", Self.contained).status == 0)
        #expect(try daemon.cli("launch", Self.own).status == 0)
        try waitUntil("the cgroups made below the app's own\n\(daemon.output)") { access(marker, F_OK) == 0 }
        #expect(access("\(directory)/\(Self.own)/workers/inner", F_OK) == 0)

        let contained = try daemon.status(Self.contained)
        #expect(contained.contained == true && contained.notContainedReason == nil, "\(contained)")
        let own = try daemon.status(Self.own)
        #expect(own.contained == false, "\(own)")
        #expect(own.notContainedReason?.contains("daemon's user") == true, "\(own)")
        let json = try daemon.cli("status", Self.own, "--json")
        #expect(json.stdout.contains("\"contained\":false") || json.stdout.contains("\"contained\" : false"), "\(json)")
        let describedOwn = try daemon.cli("status", Self.own).stdout
        #expect(describedOwn.contains("  Contained:     no ("), "\(describedOwn)")
        #expect(describedOwn.contains("daemon's user"), "\(describedOwn)")
        let describedContained = try daemon.cli("status", Self.contained).stdout
        #expect(describedContained.contains("  Contained:     yes\n"), "\(describedContained)")
        let text = try httpGet(port: port).body
        #expect(sample(text, "runway_app_contained{app=\"\(Self.contained)\"}") == 1, "\(text)")
        #expect(sample(text, "runway_app_contained{app=\"\(Self.own)\"}") == 0, "\(text)")

        #expect(try daemon.stop() == 0)
        #expect(access(directory, F_OK) != 0, "left after a stop: \(directory)\n\(daemon.output)")
    }

    @Test("P6: the cgroups of a daemon killed with SIGKILL, its apps' included, are removed by the next daemon")
    func P6_killedDaemonsCgroupsAreRemovedByTheNextDaemon() throws {
        guard let cgroups = Self.cgroupDirectory else { return }
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("runway-\(UUID().uuidString)").path
        defer { unlink(marker) }
        let first = try DaemonProcess(apps: Self.apps(cgroups: cgroups, marker: marker), settings: Self.settings)
        let pid = first.process.processIdentifier
        defer { if first.process.isRunning { kill(pid, SIGKILL) } }
        let directory = "\(cgroups)/runway.\(pid)"
        #expect(try first.cli("launch", Self.own).status == 0)
        try waitUntil("the cgroups made below the app's own\n\(first.output)") { access(marker, F_OK) == 0 }
        let app = try #require(try first.status(Self.own).pid)
        kill(pid, SIGKILL)
        try waitUntil("the killed daemon to exit") { kill(pid, 0) != 0 || Self.isZombie(pid) }
        try waitUntil("the killed daemon's socket to close") { (try? first.client()) == nil }
        #expect(access("\(directory)/\(Self.own)/workers/inner", F_OK) == 0, "kill -9 leaves the cgroups")

        let second = try DaemonProcess(restarting: first)
        defer { second.close() }
        #expect(access(directory, F_OK) != 0, "the killed daemon's cgroups are left: \(directory)\n\(second.output)")
        // The app, ended by the second daemon: a zombie of this process (a child subreaper) until reaped here.
        try waitUntil("the left app to end") { runway_reap_nonblocking(app) == app || kill(app, 0) != 0 }
        let next = "\(cgroups)/runway.\(second.process.processIdentifier)"
        #expect(try second.stop() == 0)
        #expect(access(next, F_OK) != 0, "left after a stop: \(next)")
    }

    static func isZombie(_ pid: Int32) -> Bool {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }
}
