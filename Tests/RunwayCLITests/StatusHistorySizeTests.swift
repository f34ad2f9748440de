import Foundation
import RunwayControl
import Testing

/// A plain `status` (the table, `--watch`) does not carry every app's run history: the
/// daemon encodes a reply on its loop thread, and with `RunHistoryLimit` runs of up to 20 lines per app the
/// histories made each table refresh megabytes of JSON, blocking the loop that serves deadlines. The history
/// comes with one app (`status APP`), or for every app when asked (`history: true`, `status --json`).
@Suite("status: the run history only when asked", .serialized)
struct StatusHistorySizeTests {
    @Test func theHistoryComesWithOneAppOrWhenAskedNotWithEveryStatus() throws {
        let app = "com.example.once"
        let daemon = try DaemonProcess(apps: [
            app: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                + "<string>echo last words; exit 3</string></array>"
        ])
        defer { daemon.close() }
        #expect(try daemon.cli("launch", app).status == 0)
        try waitUntil("the app to exit\n\(daemon.output)") { try daemon.status(app).lastTermination == "exited(3)" }

        let plain = try daemon.request(ControlRequest(command: "status"))
        #expect(plain.apps?.first?.history == nil, "\(String(describing: plain.apps))")
        let one = try daemon.request(ControlRequest(command: "status", app: app))
        #expect(one.apps?.first?.history?.count == 1, "\(String(describing: one.apps))")
        let asked = try daemon.request(ControlRequest(command: "status", history: true))
        #expect(asked.apps?.first?.history == one.apps?.first?.history, "\(String(describing: asked.apps))")
        let refused = try daemon.request(ControlRequest(command: "status", app: app, history: false))
        #expect(refused.apps?.first?.history == nil, "\(String(describing: refused.apps))")

        // The CLI: the table asks for none; --json has every app's history; status APP shows it.
        #expect(try daemon.cli("status", "--json").stdout.contains("last words"))
        #expect(try daemon.cli("status", app).stdout.contains("last words"))
        #expect(try daemon.stop() == 0)
    }
}
