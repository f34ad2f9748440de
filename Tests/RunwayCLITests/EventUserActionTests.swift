import Foundation
import RunwayControl
import Testing

/// L8 on the control socket: an event line reports the user action asked (`userAction`) beside the command it stood
/// for (`cause`), so that `runway home` is not reported back as a bare `enterBackground`. A real daemon and the CLI.
@Suite(.serialized) struct EventUserActionTests {
    static let alpha = "com.example.alpha"

    @Test func L8_eventLinesCarryTheUserActionAsked() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        let text = try BackgroundCommand(try RunwayBinary.executable(), ["events", "--socket", daemon.socket])
        defer { text.close() }
        try waitUntil("runway events to subscribe\n\(text.output)") { text.output.contains("subscribed") }
        let subscriber = try daemon.client()
        #expect(try subscriber.request(ControlRequest(command: "events")).subscribed == true)
        #expect(try daemon.cli("launch", Self.alpha).status == 0)
        // L9: Home once the launch is done (active), not while it is still inactive.
        try waitUntil("alpha active\n\(daemon.output)") { try daemon.status(Self.alpha).state == "active" }
        #expect(try daemon.cli("home", Self.alpha).status == 0)
        #expect(try daemon.cli("foreground", Self.alpha).status == 0)
        var lines: [String] = []
        var events: [TransitionPayload] = []
        // launch (two steps, L9), home, the suspension when didEnterBackground returns with no task, foreground.
        while events.count < 5, let line = try subscriber.readLine() {
            lines.append(String(decoding: line, as: UTF8.self))
            events.append(try ControlClient.decode(ControlEventLine.self, line).event)
        }
        let summary = events.map { "\($0.from)->\($0.to) \($0.cause) \($0.userAction ?? "-")" }
        #expect(
            summary == [
                "notRunning->inactive command(launch) -",
                "inactive->active command(launch) -",
                "active->background command(enterBackground) home",
                "background->suspended noOutstandingTasks -",
                "suspended->active command(enterForeground) -",
            ]
        )
        // The field as it is on the wire; absent, not null, when no user action was asked.
        #expect(lines.count == 5)
        #expect(lines.dropFirst(2).first?.contains(#""userAction":"home""#) == true, "\(lines)")
        #expect(lines.first?.contains("userAction") == false, "\(lines)")
        // `runway events` without --json shows it after the cause (each line starts with the wall time, then t=).
        try waitUntil("five transitions on `runway events`\n\(text.output)") {
            text.output.split(separator: "\n").filter { $0.contains(" -> ") }.count >= 5
        }
        let shown = text.output.split(separator: "\n").filter { $0.contains(" -> ") }
        #expect(
            shown[2].hasSuffix(
                "active -> background  [command(enterBackground)]  (home)  {willResignActive, didEnterBackground}"
            )
        )
        #expect(shown[0].hasSuffix("[command(launch)]  {didFinishLaunching}"), "\(shown[0])")
        #expect(shown[1].hasSuffix("inactive -> active  [command(launch)]  {didBecomeActive}"), "\(shown[1])")
    }
}
