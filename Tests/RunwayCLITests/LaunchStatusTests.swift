import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// L9 on the real daemon: a protocol app whose `didFinishLaunching` takes 1 s is `inactive` in `runway status`
/// meanwhile, then `active`, and the event stream carries both steps of the launch.
@Suite(.serialized) struct LaunchStatusTests {
    static let app = "com.example.slowstart"

    /// Acknowledges every message, `didFinishLaunching` after 1 s.
    static let program = """
        import json, os, socket, time
        channel = socket.socket(fileno=int(os.environ["RUNWAY_FD"]))
        for raw in channel.makefile("r"):
            line = json.loads(raw)
            if line.get("type") != "message":
                continue
            if line["message"] == "didFinishLaunching":
                time.sleep(1)
            channel.sendall((json.dumps({"type": "ack", "token": line["token"]}) + "\\n").encode())
        """

    @Test func L9_statusShowsInactiveDuringASlowLaunchAndTheEventsShowBothSteps() throws {
        let daemon = try DaemonProcess(
            apps: [
                Self.app: "<key>ProgramArguments</key><array><string>python3</string><string>-c</string>"
                    + "<string>\(Self.program.xmlEscaped)</string></array>"
                    + "<key>RunwayProtocol</key><integer>1</integer>"
            ]
        )
        defer { daemon.close() }
        let events = try daemon.client()
        #expect(try events.request(ControlRequest(command: "events")).subscribed == true)
        let launch = try daemon.cli("launch", Self.app)
        #expect(launch.status == 0, "\(launch)")
        #expect(launch.stdout == "\(Self.app): inactive\n", "\(launch)")
        // Well inside the 1 s didFinishLaunching: still inactive.
        #expect(try daemon.status(Self.app).state == "inactive")
        try waitUntil("active once didFinishLaunching returned\n\(daemon.output)") {
            try daemon.status(Self.app).state == "active"
        }
        var steps: [String] = []
        while steps.count < 2, let line = try events.readLine() {
            let event = try ControlClient.decode(ControlEventLine.self, line).event
            steps.append("\(event.from)->\(event.to) \(event.cause) \(event.messages)")
        }
        #expect(
            steps == [
                "notRunning->inactive command(launch) [\"didFinishLaunching\"]",
                "inactive->active command(launch) [\"didBecomeActive\"]",
            ]
        )
        #expect(try daemon.stop() == 0)
    }
}
