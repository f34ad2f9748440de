import Foundation
import RunwayTestKit
import Testing

/// `make demo-restore` (Scripts/demo-restore.py) on the built `runway`: a real daemon, the Python sample app, a
/// purge and a summon; the counter the app preserved in didEnterBackground is the one its restored launch starts
/// from, and the launch's event shows the restoration (R1, R2).
@Suite(.serialized) struct DemoRestoreTests {
    @Test func R2_thePurgedSampleAppIsSummonedWithItsCounterIntact() throws {
        let script = RunwayBinary.repositoryRoot().appendingPathComponent("Scripts/demo-restore.py").path
        let result = try shell("/usr/bin/env", ["python3", script, try RunwayBinary.executable().path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("demo-restore: counter intact: preserved"), "\(result.output)")
        #expect(result.output.contains(#""restoration":"purged""#), "\(result.output)")
    }

    /// The Swift sample (Examples/SampleApp, RunwayClient) on a real daemon: it preserves its counter with
    /// `preserveState(text:)` in didEnterBackground, and the launch after a purge hands it back with the reason.
    @Test func R2_theSwiftSampleIsLaunchedAfterAPurgeWithItsCounter() throws {
        let app = "com.example.swift"
        let daemon = try DaemonProcess(
            apps: [
                app: "<key>ProgramArguments</key><array><string>runway-sample-app</string></array>"
                    + "<key>RunwayProtocol</key><integer>1</integer><key>EnvironmentVariables</key><dict>"
                    + "<key>SAMPLE_TASK_SECONDS</key><string>0.1</string></dict>"
            ]
        )
        defer { daemon.close() }
        let logs = { try daemon.cli("logs", app).stdout }
        #expect(try daemon.cli("launch", app).status == 0)
        try waitUntil("the app active\n\(daemon.output)") { try logs().contains("counter 1 (didBecomeActive)") }
        #expect(try daemon.cli("home", app).status == 0)
        try waitUntil("the counter preserved, the app suspended\n\(daemon.output)") {
            try logs().contains("preserved counter 1") && daemon.status(app).state == "suspended"
        }
        #expect(try daemon.cli("purge").stdout == "purge: purged \(app)\n")
        #expect(try daemon.cli("launch", app).status == 0)
        try waitUntil("the launch restored the counter\n\(daemon.output)") {
            try logs().contains("restored counter 1 (purged)")
        }
        try waitUntil("the counter goes on from 1\n\(daemon.output)") {
            try logs().contains("counter 2 (didBecomeActive)")
        }
        #expect(try daemon.stop() == 0)
    }
}
