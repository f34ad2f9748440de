import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// `runway notify`, `runway memory-warning [APP]` and `runway purge` on a real daemon, through
/// the control protocol and the CLI, and a real protocol app that receives what they send.
@Suite(.serialized) struct NotifyMemoryPurgeTests {
    static let alpha = "com.example.alpha"
    static let beta = "com.example.beta"

    /// alpha active, beta suspended (Home with no task).
    private func daemon() throws -> DaemonProcess {
        let daemon = try DaemonProcess()
        #expect(try daemon.cli("launch", Self.alpha).status == 0)
        #expect(try daemon.cli("launch", Self.beta).status == 0)
        #expect(try daemon.cli("home", Self.beta).status == 0)
        try waitUntil("beta suspended") { try daemon.status(Self.beta).state == "suspended" }
        return daemon
    }

    /// Timeline lines of the daemon's output that contain `text`.
    private func lines(_ daemon: DaemonProcess, containing text: String) -> [Substring] {
        daemon.output.split(separator: "\n").filter { $0.contains(text) }
    }

    @Test func N1_notifyPostsANotificationAndIsRefusedForAnAppThatIsNotRunning() throws {
        let daemon = try self.daemon()
        defer { daemon.close() }
        var result = try daemon.cli("notify", Self.alpha, "greet", "--payload", #"{"n":1}"#)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "\(Self.alpha): active, notification greet posted\n", "\(result)")
        try waitUntil("the timeline shows the notification\n\(daemon.output)") {
            !self.lines(daemon, containing: "sent notification(greet)").isEmpty
        }
        // Held while suspended (N1): accepted, not sent.
        result = try daemon.cli("notify", Self.beta, "held")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "\(Self.beta): suspended, notification held posted\n", "\(result)")
        #expect(self.lines(daemon, containing: "sent notification(held)").isEmpty)

        #expect(try daemon.cli("terminate", Self.beta).status == 0)
        try waitUntil("beta gone") { try daemon.status(Self.beta).state == "notRunning" }
        result = try daemon.cli("notify", Self.beta, "late")
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("notRunning: \(Self.beta) is in state notRunning"), "\(result)")

        result = try daemon.cli("notify", Self.alpha, "bad", "--payload", "{not json")
        #expect(result.status == 64, "\(result)")
        let reply = try daemon.request(ControlRequest(command: "notify", app: Self.alpha, id: 3))
        #expect(reply.error?.code == "invalidRequest")
        #expect(reply.error?.message == "field 'name': notify needs a notification name of 1 to 256 bytes")
        #expect(try daemon.stop() == 0)
    }

    @Test func P3_memoryWarningReachesEveryRunningAppOrOneAndIsRefusedForASuspendedApp() throws {
        let daemon = try self.daemon()
        defer { daemon.close() }
        var result = try daemon.cli("memory-warning")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "memory-warning: sent to every running app\n", "\(result)")
        try waitUntil("alpha warned\n\(daemon.output)") {
            self.lines(daemon, containing: "sent didReceiveMemoryWarning").count == 1
        }
        #expect(self.lines(daemon, containing: "sent didReceiveMemoryWarning").first?.contains(Self.alpha) == true)

        result = try daemon.cli("memory-warning", Self.alpha)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "\(Self.alpha): active, memory warning sent\n", "\(result)")
        try waitUntil("alpha warned again\n\(daemon.output)") {
            self.lines(daemon, containing: "sent didReceiveMemoryWarning").count == 2
        }

        result = try daemon.cli("memory-warning", Self.beta)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stderr.contains(
                "notRunning: \(Self.beta) is in state suspended and cannot receive notifications or memory warnings"
            ),
            "\(result)"
        )
        #expect(!self.lines(daemon, containing: "sent didReceiveMemoryWarning").contains { $0.contains(Self.beta) })
        #expect(try daemon.stop() == 0)
    }

    @Test func P3_purgeTerminatesTheSuspendedAppAndThenFindsNothing() throws {
        let daemon = try self.daemon()
        defer { daemon.close() }
        let reply = try daemon.request(ControlRequest(command: "purge", id: 9))
        #expect(reply.ok, "\(reply)")
        #expect(reply.id == 9)
        #expect(reply.purged == Self.beta)
        #expect(try daemon.status(Self.beta).state == "notRunning")
        #expect(try daemon.status(Self.beta).lastTermination == "memoryPressure")
        let result = try daemon.cli("purge")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "purge: nothing to purge\n", "\(result)")
        #expect(try daemon.status(Self.alpha).state == "active")
        #expect(try daemon.stop() == 0)
    }

    /// A real protocol app (Config/Programs/sample_app.py) receives the notification, with its name and payload,
    /// and the memory warning, as protocol messages.
    @Test func N1_aProtocolAppReceivesTheNotificationAndTheMemoryWarning() throws {
        let sample = RunwayBinary.repositoryRoot().appendingPathComponent("Config/Programs/sample_app.py").path
        let app = "com.example.python"
        // --verbose: the daemon logs the app's output lines.
        let daemon = try DaemonProcess(
            apps: [
                app: "<key>ProgramArguments</key><array><string>python3</string><string>\(sample)</string></array>"
                    + "<key>RunwayProtocol</key><integer>1</integer>"
            ],
            arguments: ["--log-level", "debug"]
        )
        defer { daemon.close() }
        #expect(try daemon.cli("launch", app).status == 0)
        try waitUntil("the app active\n\(daemon.output)") { daemon.output.contains("received didBecomeActive") }
        var result = try daemon.cli("notify", app, "greet", "--payload", #"{"n":1}"#)
        #expect(result.status == 0, "\(result)")
        try waitUntil("the app printed the notification\n\(daemon.output)") {
            daemon.output.contains(#"notification greet {"n":1}"#)
        }
        result = try daemon.cli("memory-warning", app)
        #expect(result.status == 0, "\(result)")
        try waitUntil("the app received the warning\n\(daemon.output)") {
            daemon.output.contains("received didReceiveMemoryWarning")
        }
        #expect(try daemon.stop() == 0)
    }
}
