import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// Background wake-ups and scheduled refresh (W1-W9) on a real daemon, through the CLI and the control protocol, with
/// a real protocol app (Config/Programs/sample_app.py) that receives `backgroundWake` and answers with
/// `backgroundWakeCompleted` and `scheduleRefresh`.
@Suite(.serialized) struct WakeTests {
    static let app = "com.example.python"

    /// A daemon running the Python sample as `app`, logging its output (--log-level debug), with `environment`.
    private func daemon(_ environment: [String: String], settings: String = "") throws -> DaemonProcess {
        let sample = RunwayBinary.repositoryRoot().appendingPathComponent("Config/Programs/sample_app.py").path
        let variables = environment.map { "<key>\($0.key)</key><string>\($0.value)</string>" }.joined()
        return try DaemonProcess(
            apps: [
                Self.app: "<key>ProgramArguments</key><array><string>python3</string><string>\(sample)</string></array>"
                    + "<key>RunwayProtocol</key><integer>1</integer>"
                    + "<key>EnvironmentVariables</key><dict>\(variables)</dict>",
                "com.example.alpha": "",
            ],
            settings: "<key>BackgroundTimeBudget</key><real>30</real><key>ExpirationWarningLead</key><real>5</real>"
                + settings,
            arguments: ["--log-level", "debug"]
        )
    }

    /// The daemon's clock (t=...s) on the first line of its output containing `text`.
    private func instant(_ daemon: DaemonProcess, of text: String) -> Double? {
        guard let line = daemon.output.split(separator: "\n").first(where: { $0.contains(text) }),
            let start = line.range(of: "t="), let end = line[start.upperBound...].firstIndex(of: "s")
        else { return nil }
        return Double(line[start.upperBound..<end])
    }

    @Test func W1_aSuspendedProtocolAppIsWokenForAFetchAndSuspendedWhenItCompletes() throws {
        let daemon = try self.daemon(["SAMPLE_TASK_SECONDS": "0.1", "SAMPLE_WAKE_SECONDS": "0.3"])
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.app).status == 0)
        try waitUntil("the app active\n\(daemon.output)") { daemon.output.contains("received didBecomeActive") }
        #expect(try daemon.cli("home", Self.app).status == 0)
        try waitUntil("suspended\n\(daemon.output)") { try daemon.status(Self.app).state == "suspended" }

        let result = try daemon.cli("wake", Self.app, "--reason", "fetch", "--payload", #"{"n":1}"#)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "\(Self.app): background, woken for fetch (wake#1)\n", "\(result)")
        try waitUntil("the app printed the wake-up\n\(daemon.output)") {
            daemon.output.contains(#"wake fetch {"n":1} wake#1"#)
        }
        try waitUntil("the app completed it and was suspended\n\(daemon.output)") {
            try daemon.output.contains("completed wake 1") && daemon.status(Self.app).state == "suspended"
        }
        #expect(daemon.output.contains("suspended -> background  [backgroundWake(fetch)]"), "\(daemon.output)")
        #expect(daemon.output.contains("background -> suspended  [noOutstandingTasks]"), "\(daemon.output)")
        #expect(try daemon.stop() == 0)
    }

    @Test func W3_W5_refusalsNameTheRuleOrTheLimit() throws {
        let daemon = try self.daemon([:], settings: "<key>BackgroundWakePayloadByteLimit</key><integer>4</integer>")
        defer { daemon.close() }
        #expect(try daemon.cli("launch", "com.example.alpha").status == 0)
        var result = try daemon.cli("wake", "com.example.alpha", "--reason", "fetch")
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("notWakeable: com.example.alpha in state active cannot be woken for fetch"))
        result = try daemon.cli("wake", "com.example.alpha", "--reason", "remote-notification", "--payload", "12345")
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("longer than 4 bytes, the limit (BackgroundWakePayloadByteLimit)"), "\(result)")
        // An embedded app of the daemon completes at once (the delegate's default): suspended again.
        #expect(try daemon.cli("home", "com.example.alpha").status == 0)
        try waitUntil("alpha suspended") { try daemon.status("com.example.alpha").state == "suspended" }
        let reply = try daemon.request(
            ControlRequest(command: "wake", app: "com.example.alpha", id: 4, reason: "remote-notification")
        )
        #expect(reply.ok && reply.wake == 1 && reply.state == "background", "\(reply)")
        try waitUntil("alpha suspended again") { try daemon.status("com.example.alpha").state == "suspended" }
        let bad = try daemon.request(ControlRequest(command: "wake", app: "com.example.alpha", id: 5, reason: "push"))
        #expect(bad.error?.code == "invalidRequest", "\(bad)")
        #expect(try daemon.cli("wake", "com.example.alpha", "--reason", "refresh").status == 64)
        #expect(try daemon.stop() == 0)
    }

    @Test func W7_aProtocolAppsScheduledRefreshWakesItNoEarlierThanItAskedAndStatusShowsIt() throws {
        let daemon = try self.daemon(["SAMPLE_TASK_SECONDS": "0.1", "SAMPLE_REFRESH_SECONDS": "2"])
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.app).status == 0)
        try waitUntil("the refresh requested\n\(daemon.output)") {
            daemon.output.contains("refresh scheduled in 2.0 s")
        }
        let due = try #require(try daemon.status(Self.app).nextRefreshAtSeconds)
        let table = try daemon.cli("status")
        #expect(table.stdout.contains("\(Self.app): next refresh at t="), "\(table)")
        #expect(try daemon.cli("home", Self.app).status == 0)
        try waitUntil("the app woken for the refresh, then suspended\n\(daemon.output)") {
            try daemon.output.contains("completed wake 1") && daemon.status(Self.app).state == "suspended"
        }
        #expect(daemon.output.contains("wake refresh  wake#1"), "\(daemon.output)")
        let woken = try #require(self.instant(daemon, of: "[backgroundWake(refresh)]"))
        // The timeline prints milliseconds; the wake-up is never early (W7, B9).
        #expect(woken >= (due * 1_000).rounded(.down) / 1_000, "due \(due), woken \(woken)")
        #expect(try daemon.status(Self.app).nextRefreshAtSeconds == nil)
        #expect(try daemon.stop() == 0)
    }

    @Test func W9_aRestartedDaemonHasNoRefreshRequest() throws {
        let first = try self.daemon(["SAMPLE_TASK_SECONDS": "0.1", "SAMPLE_REFRESH_SECONDS": "60"])
        defer { first.close() }
        #expect(try first.cli("launch", Self.app).status == 0)
        try waitUntil("the refresh requested\n\(first.output)") {
            try first.status(Self.app).nextRefreshAtSeconds != nil
        }
        #expect(try first.stop() == 0)

        // Requests live in the daemon's memory only: the next daemon on the same configuration and state directory
        // has none, and does not launch the app for it; the app asks again when it runs (W9).
        let second = try DaemonProcess(restarting: first)
        defer { second.close() }
        let status = try second.status(Self.app)
        #expect(status.nextRefreshAtSeconds == nil, "\(status)")
        #expect(status.state == "notRunning", "\(status)")
        #expect(try second.stop() == 0)
    }

    /// `make demo-wake`: Config/Scenarios/wake.jsonl on the shipped configuration plays a modern lock, a background
    /// fetch and a scheduled refresh on the real daemon, and every step holds.
    @Test func W1_W7_theWakeScenarioPlaysAModernLockAFetchAndARefresh() throws {
        let socket = "/tmp/runway-wake-\(UUID().uuidString.prefix(8)).sock"
        let scenario = RunwayBinary.shippedConfig + "/Scenarios/wake.jsonl"
        let result = try RunwayBinary.run([
            "run", "--config", RunwayBinary.shippedConfig, "--scenario", scenario, "--socket", socket,
            "--timeline", "always",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("every step held"), "\(result)")
        let transitions = result.stdout.split(separator: "\n").filter {
            $0.contains("com.example.weather") && $0.contains(" -> ")
        }
        let expected = [
            "notRunning -> inactive  [command(launch)]",
            "inactive -> active  [command(launch)]",
            "active -> background  [command(enterBackground)]  (lock)  {willResignActive, didEnterBackground}",
            "background -> suspended  [noOutstandingTasks]",
            "suspended -> background  [backgroundWake(fetch)]  {backgroundWake(fetch, wake#1)}",
            "background -> suspended  [noOutstandingTasks]",
            "suspended -> background  [backgroundWake(refresh)]  {backgroundWake(refresh, wake#2)}",
            "background -> suspended  [noOutstandingTasks]",
            "suspended -> active  [command(enterForeground)]  (unlock)  {willEnterForeground, didBecomeActive}",
            "active -> notRunning  [terminated(shutdown)]",
        ]
        #expect(transitions.count == expected.count, "\(result)")
        for (line, text) in zip(transitions, expected) {
            #expect(line.contains(text), "expected \(text) in \(line)")
        }
    }
}
