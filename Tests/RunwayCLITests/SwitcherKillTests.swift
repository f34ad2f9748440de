import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// S15 on a real daemon, through the CLI and the control protocol: `runway switcher-kill APP` ends a suspended app
/// with no message, sends a real protocol app in the background `willTerminate` before it ends, and is refused for
/// the app in the foreground.
@Suite(.serialized) struct SwitcherKillTests {
    static let alpha = "com.example.alpha"
    static let beta = "com.example.beta"
    static let python = "com.example.python"

    @Test func S15_switcherKillEndsTheAppsTheUserLeftAndIsRefusedForTheOneInTheForeground() throws {
        let sample = RunwayBinary.repositoryRoot().appendingPathComponent("Config/Programs/sample_app.py").path
        // --log-level debug: the daemon logs the protocol app's output lines ("received willTerminate").
        let daemon = try DaemonProcess(
            apps: [
                Self.alpha: "", Self.beta: "",
                Self.python: "<key>ProgramArguments</key><array><string>python3</string><string>\(sample)</string>"
                    + "</array><key>RunwayProtocol</key><integer>1</integer><key>EnvironmentVariables</key><dict>"
                    + "<key>SAMPLE_TASK_SECONDS</key><string>never</string></dict>",
            ],
            arguments: ["--log-level", "debug"]
        )
        defer { daemon.close() }
        for app in [Self.alpha, Self.beta, Self.python] {
            #expect(try daemon.cli("launch", app).status == 0)
        }

        // The app in the foreground is not in the switcher: refused, nothing changes.
        var result = try daemon.cli("switcher-kill", Self.alpha)
        #expect(result.status == 1, "\(result)")
        let refusal = "illegalCommand: \(Self.alpha) cannot switcherKill in state active"
        #expect(result.stderr.contains(refusal), "\(result)")
        #expect(try daemon.status(Self.alpha).state == "active")

        // A suspended app: killed with no message.
        #expect(try daemon.cli("home", Self.beta).status == 0)
        try waitUntil("beta suspended") { try daemon.status(Self.beta).state == "suspended" }
        result = try daemon.cli("switcher-kill", Self.beta)
        #expect(result.status == 0, "\(result)")
        try waitUntil("beta killed") { try daemon.status(Self.beta).state == "notRunning" }
        #expect(try daemon.status(Self.beta).lastTermination == "requested")

        // A protocol app in the background holding its "upload" task: willTerminate, then it ends.
        #expect(try daemon.cli("home", Self.python).status == 0)
        try waitUntil("the python app holds its task\n\(daemon.output)") {
            let tasks = try daemon.status(Self.python).tasks.count
            return daemon.output.contains("received didEnterBackground") && tasks == 1
        }
        let reply = try daemon.request(ControlRequest(command: "switcherKill", app: Self.python, id: 4))
        #expect(reply.ok, "\(reply)")
        #expect(reply.state == "background")
        try waitUntil("the python app received willTerminate and ended\n\(daemon.output)") {
            let state = try daemon.status(Self.python).state
            return daemon.output.contains("received willTerminate") && state == "notRunning"
        }
        #expect(try daemon.status(Self.python).lastTermination == "requested")
        #expect(try daemon.status(Self.alpha).state == "active")
        #expect(try daemon.stop() == 0)
    }
}
