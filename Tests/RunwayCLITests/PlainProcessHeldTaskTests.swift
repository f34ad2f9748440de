import Foundation
import RunwayTestKit
import Testing

/// `runway begin-task` on a plain process (no `RunwayProtocol`), through a real `runway run`: the task's
/// expiration warning (B4) is logged by the daemon and counted in `runway_expiration_handlers_called_total`
/// before the budget's SIGKILL (B6), as it is for every other kind of app.
@Suite(.serialized) struct PlainProcessHeldTaskTests {
    static let sleeper = "com.example.sleeper"
    static let warning = "expiration warning for a task held on the app's behalf"

    @Test func B4_theWarningOfATaskHeldForAPlainProcessIsLoggedAndCountedBeforeTheKill() throws {
        // A 3 s budget with a 1 s lead: the warning 2 s after the background entry, SIGKILL at 3 s.
        let daemon = try DaemonProcess(
            apps: [
                Self.sleeper: "<key>ProgramArguments</key><array><string>/bin/sleep</string><string>600</string>"
                    + "</array>"
            ],
            settings: "<key>BackgroundTimeBudget</key><real>3</real><key>ExpirationWarningLead</key><real>1</real>",
            arguments: ["--metrics-address", "127.0.0.1:0", "--log-level", "info"]
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        #expect(try daemon.cli("launch", Self.sleeper).status == 0)
        let began = try daemon.cli("begin-task", Self.sleeper, "job")
        #expect(began.status == 0, "\(began)")
        #expect(try daemon.cli("home", Self.sleeper).status == 0)
        try waitUntil("the sleeper killed by its budget\n\(daemon.output)") {
            try daemon.status(Self.sleeper).state == "notRunning"
        }
        let output = daemon.output
        let lines = output.split(separator: "\n")
        // One warning line, naming the app and the task, before the overrun's termination.
        let warnings = lines.indices.filter { lines[$0].contains(Self.warning) }
        #expect(warnings.count == 1, "\(output)")
        let warned = try #require(warnings.first, "\(output)")
        #expect(lines[warned].contains(Self.sleeper) && lines[warned].contains("job"), "\(lines[warned])")
        let overrun = try #require(lines.firstIndex { $0.contains("budgetOverrun") }, "\(output)")
        #expect(warned < overrun, "\(output)")
        let text = try httpGet(port: port).body
        #expect(sample(text, "runway_expiration_handlers_called_total") == 1, "\(text)")
        #expect(sample(text, "runway_terminations_total{reason=\"budgetOverrun\"}") == 1, "\(text)")
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }
}
