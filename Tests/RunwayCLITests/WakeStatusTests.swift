import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// `runway status APP` (the describe view) shows an app's wake-ups not completed and its pending refresh (W6, W7), as
/// the table does below its rows; with a real protocol app (Config/Programs/sample_app.py) on a real daemon.
@Suite(.serialized) struct WakeStatusTests {
    static let app = "com.example.python"

    @Test func W6_W7_theDescribeViewShowsWakeUpsNotCompletedAndTheNextRefresh() throws {
        let sample = RunwayBinary.repositoryRoot().appendingPathComponent("Config/Programs/sample_app.py").path
        let environment = [
            "SAMPLE_TASK_SECONDS": "0.1", "SAMPLE_WAKE_SECONDS": "never", "SAMPLE_REFRESH_SECONDS": "600",
        ]
        let variables = environment.map { "<key>\($0.key)</key><string>\($0.value)</string>" }.joined()
        let daemon = try DaemonProcess(
            apps: [
                Self.app: "<key>ProgramArguments</key><array><string>python3</string><string>\(sample)</string></array>"
                    + "<key>RunwayProtocol</key><integer>1</integer>"
                    + "<key>EnvironmentVariables</key><dict>\(variables)</dict>"
            ],
            settings: "<key>BackgroundTimeBudget</key><real>30</real>",
            arguments: ["--log-level", "debug"]
        )
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.app).status == 0)
        try waitUntil("the refresh requested\n\(daemon.output)") {
            daemon.output.contains("refresh scheduled in 600.0 s")
        }
        let due = try #require(try daemon.status(Self.app).nextRefreshAtSeconds)
        var describe = try daemon.cli("status", Self.app)
        #expect(describe.stdout.contains("  Next refresh:  t=\(StatusTableSeconds.text(due))\n"), "\(describe)")
        #expect(!describe.stdout.contains("Wake-ups:"), "\(describe)")
        #expect(try daemon.cli("home", Self.app).status == 0)
        try waitUntil("suspended\n\(daemon.output)") { try daemon.status(Self.app).state == "suspended" }
        #expect(try daemon.cli("wake", Self.app, "--reason", "fetch").status == 0)
        describe = try daemon.cli("status", Self.app)
        #expect(describe.stdout.contains("  Wake-ups:      1 not completed\n"), "\(describe)")
        #expect(try daemon.stop() == 0)
    }

    @Test func W1_aWakeUpWhoseProgramCannotBeStartedFailsNamingWhy() throws {
        let missing = "com.example.missing"
        let daemon = try DaemonProcess(
            apps: [missing: "<key>ProgramArguments</key><array><string>/nonexistent/runway-wake</string></array>"]
        )
        defer { daemon.close() }
        // As for launch: not "woken for fetch" with state notRunning, but spawnFailed and exit 1.
        let wake = try daemon.cli("wake", missing, "--reason", "fetch")
        #expect(wake.status == 1, "\(wake)")
        #expect(wake.stdout.isEmpty, "\(wake)")
        #expect(
            wake.stderr.contains("error: spawnFailed: \(missing) could not be started: ProgramArguments[0]"),
            "\(wake)"
        )
        let reply = try daemon.request(ControlRequest(command: "wake", app: missing, reason: "remote-notification"))
        #expect(reply.ok == false && reply.error?.code == "spawnFailed", "\(reply)")
        #expect(try daemon.stop() == 0)
    }
}

/// The table's and the describe view's seconds: one decimal.
private enum StatusTableSeconds {
    static func text(_ value: Double) -> String { String(format: "%.1fs", value) }
}
