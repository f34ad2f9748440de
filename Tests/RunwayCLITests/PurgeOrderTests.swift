import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// P8 on a real daemon with real child processes: `runway purge` ends a suspended app first, then an app in the
/// background holding a task, then a background-mode app, and never the app in the foreground.
@Suite(.serialized) struct PurgeOrderTests {
    static let suspended = "com.example.suspended"
    static let working = "com.example.working"
    static let audio = "com.example.audio"
    static let front = "com.example.front"

    @Test func P8_purgeEndsTheSuspendedAppThenTheOneHoldingATaskThenTheBackgroundModeApp() throws {
        let sleep = "<key>ProgramArguments</key><array><string>/bin/sleep</string><string>1000</string></array>"
        let daemon = try DaemonProcess(apps: [
            Self.suspended: sleep, Self.working: sleep, Self.front: sleep,
            Self.audio: sleep + "<key>UIBackgroundModes</key><array><string>audio</string></array>",
        ])
        defer { daemon.close() }
        // audio enters the background first (the longest there), then suspended, then working with a task.
        for app in [Self.audio, Self.suspended, Self.working, Self.front] {
            #expect(try daemon.cli("launch", app).status == 0)
        }
        #expect(try daemon.cli("home", Self.audio).status == 0)
        #expect(try daemon.cli("home", Self.suspended).status == 0)
        try waitUntil("suspended is suspended") { try daemon.status(Self.suspended).state == "suspended" }
        #expect(try daemon.cli("begin-task", Self.working, "upload").status == 0)
        #expect(try daemon.cli("home", Self.working).status == 0)
        #expect(try daemon.status(Self.working).state == "background")
        #expect(try daemon.status(Self.audio).state == "background")

        var purged: [String] = []
        for _ in 0..<4 {
            let reply = try daemon.request(ControlRequest(command: "purge"))
            #expect(reply.ok, "\(reply)")
            guard let app = reply.purged else { break }
            purged.append(app)
            try waitUntil("\(app) ended") { try daemon.status(app).state == "notRunning" }
            #expect(try daemon.status(app).lastTermination == "memoryPressure")
        }
        #expect(purged == [Self.suspended, Self.working, Self.audio])
        #expect(try daemon.status(Self.front).state == "active")
        #expect(try daemon.stop() == 0)
    }
}
