import Foundation
import Testing

/// The descriptor reserve (Docs/Deployment.md, `LimitNOFILE`): a daemon whose `RLIMIT_NOFILE` is nearly taken by
/// its apps refuses the launches that would leave fewer than `ControlClientLimit` + `MetricsConnectionLimit` + 64
/// descriptors free, naming the limit and the reserve, and its control socket and metrics endpoint still answer.
/// Real daemon, real children, the limit lowered with prlimit(2).
@Suite(.serialized) struct DescriptorReserveTests {
    static let apps = (0..<40).map { String(format: "com.test.descriptor-reserve.%02d", $0) }

    /// The daemon's open descriptors, from /proc.
    static func openDescriptors(_ pid: Int32) -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []).count
    }

    @Test func launchesPastTheReserveAreRefusedNamingTheLimitAndClientsStillGetAnswers() throws {
        let program = "<key>ProgramArguments</key><array><string>/bin/sleep</string><string>1000</string></array>"
        let daemon = try DaemonProcess(
            apps: Dictionary(uniqueKeysWithValues: Self.apps.map { ($0, program) }),
            settings: "<key>MetricsAddress</key><string>127.0.0.1:0</string>"
                + "<key>ControlClientLimit</key><integer>4</integer>"
                + "<key>MetricsConnectionLimit</key><integer>2</integer>"
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        let pid = daemon.process.processIdentifier
        let reserve = 4 + 2 + 64
        // Room for a few apps (a plain app's run holds 4 to 6 descriptors) above the reserve, not for 40.
        let limit = Self.openDescriptors(pid) + reserve + 40
        let prlimit = Process()
        prlimit.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        prlimit.arguments = ["--pid", "\(pid)", "--nofile=\(limit):\(limit)"]
        try prlimit.run()
        prlimit.waitUntilExit()
        try #require(prlimit.terminationStatus == 0)

        var launched: [String] = []
        var refused: [(app: String, result: RunResult)] = []
        for app in Self.apps {
            let result = try daemon.cli("launch", app)
            if result.status == 0 && refused.isEmpty {
                launched.append(app)
            } else {
                refused.append((app, result))
            }
        }
        #expect(launched.count >= 2 && launched.count <= 10, "launched \(launched.count)\n\(daemon.output)")
        #expect(refused.count == Self.apps.count - launched.count)
        for (app, result) in refused {
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("error: spawnFailed: \(app) could not be started"), "\(result)")
            #expect(result.stderr.contains("RLIMIT_NOFILE is \(limit) (LimitNOFILE"), "\(result)")
            #expect(result.stderr.contains("fewer than the reserve of \(reserve)"), "\(result)")
            #expect(try daemon.status(app).state == "notRunning")
        }
        // The launched apps run; the refused ones opened nothing that stayed open.
        for app in launched { #expect(try daemon.status(app).pid != nil, "\(app)") }
        let free = limit - Self.openDescriptors(pid)
        #expect(free >= reserve - 8, "\(free) descriptors free, reserve \(reserve)")
        let before = Self.openDescriptors(pid)
        for app in refused.prefix(5).map(\.app) { #expect(try daemon.cli("launch", app).status == 1) }
        // The last status request's connection may still be closing: fewer, never more.
        try waitUntil("the refused launches to leave no descriptor open (\(before) before)") {
            Self.openDescriptors(pid) <= before
        }

        // The control socket and the metrics endpoint answer.
        let status = try daemon.cli("status", "--json")
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains(refused[0].app), "\(status)")
        let metrics = try httpGet(port: port)
        #expect(metrics.status == 200, "\(metrics)")
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }
}
