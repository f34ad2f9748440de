import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// E1's default and L10 on the real daemon with a protocol app (a Python program that acknowledges every message).
@Suite(.serialized) struct ExitsAndInterruptionDaemonTests {
    static let app = "com.example.acker"

    /// Acknowledges every message at once.
    static let program = """
        import json, os, socket
        channel = socket.socket(fileno=int(os.environ["RUNWAY_FD"]))
        for raw in channel.makefile("r"):
            line = json.loads(raw)
            if line.get("type") == "message":
                channel.sendall((json.dumps({"type": "ack", "token": line["token"]}) + "\\n").encode())
        """

    static func plist(_ extra: String) -> String {
        "<key>ProgramArguments</key><array><string>python3</string><string>-c</string>"
            + "<string>\(Self.program.xmlEscaped)</string></array>"
            + "<key>RunwayProtocol</key><integer>1</integer>" + extra
    }

    /// The next `count` transitions on a subscribed client, as `from->to [messages]`.
    static func transitions(_ client: ControlClient, _ count: Int) throws -> [String] {
        var steps: [String] = []
        while steps.count < count, let line = try client.readLine() {
            let event = try ControlClient.decode(ControlEventLine.self, line).event
            steps.append("\(event.from)->\(event.to) \(event.messages)")
        }
        return steps
    }

    @Test func E1_anExitsOnSuspendAppWithoutAStyleIsTerminatedOnHomeNeverInTheBackground() throws {
        let daemon = try DaemonProcess(
            apps: [Self.app: Self.plist("<key>UIApplicationExitsOnSuspend</key><true/>")]
        )
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.app).status == 0)
        try waitUntil("active\n\(daemon.output)") { try daemon.status(Self.app).state == "active" }
        let events = try daemon.client()
        #expect(try events.request(ControlRequest(command: "events")).subscribed == true)
        #expect(try daemon.cli("home", Self.app).status == 0)
        try waitUntil("notRunning\n\(daemon.output)") { try daemon.status(Self.app).state == "notRunning" }
        #expect(
            try Self.transitions(events, 2) == [
                "active->inactive [\"willResignActive\"]", "inactive->notRunning [\"willTerminate\"]",
            ]
        )
        #expect(try daemon.stop() == 0)
    }

    @Test func L10_aModernUnlockWhileAnAlertIsOpenLeavesTheAppInactiveUntilTheAlertCloses() throws {
        let daemon = try DaemonProcess(
            apps: [Self.app: Self.plist("<key>LockBehavior</key><string>modern</string>")]
        )
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.app).status == 0)
        try waitUntil("active\n\(daemon.output)") { try daemon.status(Self.app).state == "active" }
        #expect(try daemon.cli("alert").status == 0)
        try waitUntil("inactive\n\(daemon.output)") { try daemon.status(Self.app).state == "inactive" }
        #expect(try daemon.cli("lock").status == 0)
        try waitUntil("suspended\n\(daemon.output)") { try daemon.status(Self.app).state == "suspended" }
        let events = try daemon.client()
        #expect(try events.request(ControlRequest(command: "events")).subscribed == true)
        #expect(try daemon.cli("unlock").status == 0)
        #expect(try Self.transitions(events, 1) == ["suspended->inactive [\"willEnterForeground\"]"])
        #expect(try daemon.status(Self.app).state == "inactive")
        #expect(try daemon.cli("alert-ignored").status == 0)
        #expect(try Self.transitions(events, 1) == ["inactive->active [\"didBecomeActive\"]"])
        #expect(try daemon.stop() == 0)
    }
}
