import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// Device-wide user events (S7, S8, S10, P7) and LockBehavior on a real daemon, through the control protocol and
/// the CLI.
@Suite(.serialized) struct DeviceEventTests {
    static let alpha = "com.example.alpha"
    static let beta = "com.example.beta"
    static let gamma = "com.example.gamma"
    static let delta = "com.example.delta"

    /// alpha classic (the default), beta `LockBehavior` modern, gamma suspended before the lock, delta not running.
    private func daemon() throws -> DaemonProcess {
        let daemon = try DaemonProcess(apps: [
            Self.alpha: "", Self.beta: "<key>LockBehavior</key><string>modern</string>", Self.gamma: "", Self.delta: "",
        ])
        for app in [Self.alpha, Self.beta, Self.gamma] {
            #expect(try daemon.cli("launch", app).status == 0)
        }
        #expect(try daemon.cli("home", Self.gamma).status == 0)
        try waitUntil("gamma suspended") { try daemon.status(Self.gamma).state == "suspended" }
        return daemon
    }

    private func states(_ daemon: DaemonProcess) throws -> [String] {
        try [Self.alpha, Self.beta, Self.gamma, Self.delta].map { try daemon.status($0).state }
    }

    @Test func S7_aDeviceLockReachesTheForegroundAppsByTheirLockBehaviorAndTheUnlockOnlyThoseItReached() throws {
        let daemon = try self.daemon()
        defer { daemon.close() }

        // The protocol: no app, the reply lists the apps reached.
        let lock = try daemon.request(ControlRequest(command: "lock", id: 7))
        #expect(lock.ok, "\(lock)")
        #expect(lock.id == 7)
        #expect(lock.reached == [Self.alpha, Self.beta])
        #expect(lock.state == nil)
        // alpha (classic) is inactive; beta (modern) entered the background and, holding no task, is suspended.
        try waitUntil("beta suspended by the lock") { try daemon.status(Self.beta).state == "suspended" }
        #expect(try self.states(daemon) == ["inactive", "suspended", "suspended", "notRunning"])

        // The CLI without an app: device-wide; gamma, suspended before the lock, stays suspended.
        var result = try daemon.cli("unlock")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "unlock: reached \(Self.alpha), \(Self.beta)\n", "\(result)")
        try waitUntil("beta active again") { try daemon.status(Self.beta).state == "active" }
        #expect(try self.states(daemon) == ["active", "active", "suspended", "notRunning"])

        // Nothing is locked any more: the unlock reaches no app, and that is not an error.
        result = try daemon.cli("unlock")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "unlock: reached no app\n", "\(result)")

        // The per-app form stays, and is refused in a state where it is illegal.
        result = try daemon.cli("lock", Self.alpha)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "\(Self.alpha): inactive\n", "\(result)")
        result = try daemon.cli("lock", Self.gamma)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("illegalCommand: \(Self.gamma) cannot resignActive in state suspended"))
        #expect(try daemon.stop() == 0)
    }

    @Test func P7_aDeviceShutdownOfferReachesTheForegroundAppsAndTheAcceptEndsEveryApp() throws {
        let daemon = try self.daemon()
        defer { daemon.close() }
        var result = try daemon.cli("offer-shutdown")
        #expect(result.stdout == "offer-shutdown: reached \(Self.alpha), \(Self.beta)\n", "\(result)")
        // gamma, suspended, is ended too (with no message): the device powers off.
        result = try daemon.cli("accept-shutdown")
        #expect(result.stdout == "accept-shutdown: reached \(Self.alpha), \(Self.beta), \(Self.gamma)\n", "\(result)")
        try waitUntil("every app ended") {
            try self.states(daemon) == ["notRunning", "notRunning", "notRunning", "notRunning"]
        }
        #expect(try daemon.status(Self.alpha).lastTermination == "requested")
        #expect(try daemon.status(Self.gamma).lastTermination == "requested")
        #expect(try daemon.stop() == 0)
    }

    @Test func K1_aUserActionThatIsNotADeviceEventStillNeedsAnApp() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        let reply = try daemon.request(ControlRequest(command: "home"))
        #expect(!reply.ok)
        #expect(reply.error?.code == "invalidRequest")
        #expect(reply.error?.message == "field 'app': command 'home' needs an app")
        #expect(reply.reached == nil)
        let result = try daemon.cli("home")
        #expect(result.status != 0, "\(result)")
        #expect(try daemon.stop() == 0)
    }

    @Test func K3_aScenarioStepWithoutAnAppIsDeviceWideOnlyForDeviceEvents() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("a.plist", identifier: Self.alpha)
        let socket = "/tmp/runway-test-\(UUID().uuidString.prefix(8)).sock"
        let good = try config.write(
            "good.jsonl",
            """
            {"at": 0,   "app": "\(Self.alpha)", "do": "launch"}
            {"at": 0.2, "do": "alert"}
            {"at": 0.4, "app": "\(Self.alpha)", "expect": "inactive"}
            {"at": 0.6, "do": "alertAnswered"}
            {"at": 0.8, "app": "\(Self.alpha)", "expect": "suspended"}
            {"at": 1,   "do": "alertIgnored"}

            """
        )
        var result = try RunwayBinary.run(["run", "--config", config.path, "--scenario", good, "--socket", socket])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("> alert (device-wide)"), "\(result)")
        #expect(result.stdout.contains("reached \(Self.alpha)"), "\(result)")
        #expect(result.stdout.contains("reached no app"), "the alert was closed by alertAnswered\n\(result)")
        #expect(result.stdout.contains("every step held"), "\(result)")

        let bad = try config.write("bad.jsonl", #"{"at": 0, "do": "home"}"# + "\n")
        result = try RunwayBinary.run(["run", "--config", config.path, "--scenario", bad, "--socket", socket])
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stderr.contains("\(bad):1: field 'app' is missing: this step needs the bundle identifier of an app"),
            "\(result)"
        )
    }
}
