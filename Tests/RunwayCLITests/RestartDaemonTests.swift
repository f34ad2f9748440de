import Foundation
import RunwayControl
import Testing

/// Autostart, KeepAlive restarts and the run history with a real daemon and real children: RunAtLoad at
/// start and on reload, a crashing child restarted with growing delays and then shown crash-looping, a budget
/// overrun never restarted, and the history kept across a daemon restart.
@Suite("Autostart, restart and history", .serialized)
struct RestartDaemonTests {
    static let loop =
        "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
        + "<string>trap 'exit 0' TERM; while :; do sleep 0.05; done</string></array>"

    /// The next event line on a raw `events` subscription.
    func nextEvent(_ client: ControlClient) throws -> TransitionPayload {
        guard let line = try client.readLine() else { throw HarnessError(description: "the event stream ended") }
        return try ControlClient.decode(ControlEventLine.self, line).event
    }

    @Test func runAtLoadLaunchesAtStartIntoTheLaunchStateAndOnReload() throws {
        let daemon = try DaemonProcess(apps: [
            "com.example.front": Self.loop + "<key>RunAtLoad</key><true/>",
            "com.example.back": Self.loop + "<key>RunAtLoad</key><true/>"
                + "<key>UIBackgroundModes</key><array><string>fetch</string></array>",
            "com.example.idle": Self.loop,
        ])
        defer { daemon.close() }
        try waitUntil("both RunAtLoad apps running\n\(daemon.output)") {
            try daemon.status("com.example.front").pid != nil && daemon.status("com.example.back").pid != nil
        }
        #expect(try daemon.status("com.example.front").state == "active")
        #expect(try daemon.status("com.example.back").state == "background")
        #expect(try daemon.status("com.example.idle").state == "notRunning")
        #expect(daemon.output.contains("RunAtLoad: launchInBackground"), "\(daemon.output)")

        // A reload that adds an app with RunAtLoad launches it; one without stays notRunning.
        try daemon.config.writeApp(
            "added.plist",
            identifier: "com.example.added",
            Self.loop + "<key>RunAtLoad</key><true/>"
        )
        try daemon.config.writeApp("quiet.plist", identifier: "com.example.quiet", Self.loop)
        let reload = try daemon.cli("reload")
        #expect(reload.status == 0, "\(reload)")
        try waitUntil("the added app running\n\(daemon.output)") { try daemon.status("com.example.added").pid != nil }
        #expect(try daemon.status("com.example.added").state == "active")
        #expect(try daemon.status("com.example.quiet").state == "notRunning")
        #expect(try daemon.stop() == 0)
    }

    @Test func crashingChildIsRestartedWithGrowingDelaysThenShownCrashLooping() throws {
        let app = "com.example.crash"
        let daemon = try DaemonProcess(
            apps: [
                app: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                    + "<string>echo starting; exit 3</string></array>"
                    + "<key>KeepAlive</key><true/><key>ThrottleInterval</key><real>0.2</real>"
            ],
            settings: "<key>RestartBackoffLimit</key><real>0.8</real><key>CrashLoopThreshold</key><integer>3</integer>"
        )
        defer { daemon.close() }
        let events = try daemon.client()
        #expect(try events.request(ControlRequest(command: "events")).subscribed == true)
        #expect(try daemon.cli("launch", app).status == 0)

        // Five failures: each exit arms the next restart 0.2, 0.4, 0.8 (the limit), 0.8, 0.8 s after it, on the
        // daemon's clock; crash-looping from the third.
        var delays: [Double] = []
        var looping: [Bool] = []
        var restartAt: Double?
        while delays.count < 5 {
            let event = try self.nextEvent(events)
            #expect(event.wallTime?.hasSuffix("Z") == true, "\(event)")
            if event.from == "notRunning" {
                // A restart never comes early, and says which one it is.
                let cause = delays.isEmpty ? "command(launch)" : "restart(\(delays.count))"
                #expect(event.cause == cause, "\(event)")
                #expect(event.atSeconds >= (restartAt ?? 0), "\(event)")
                continue
            }
            guard event.to == "notRunning" else { continue }
            #expect(event.reason == "exited(3)", "\(event)")
            let at = try #require(event.restartAtSeconds, "\(event)")
            delays.append(((at - event.atSeconds) * 1_000).rounded() / 1_000)
            looping.append(event.crashLooping == true)
            restartAt = at
        }
        #expect(delays == [0.2, 0.4, 0.8, 0.8, 0.8])
        #expect(looping == [false, false, true, true, true])

        let status = try daemon.status(app)
        #expect(status.crashLooping == true)
        #expect((status.restarts ?? 0) >= 4)
        let describe = try daemon.cli("status", app)
        #expect(describe.stdout.contains("Crash loop:    yes"), "\(describe)")
        #expect(describe.stdout.contains("exited(3), status 3"), "\(describe)")
        let table = try daemon.cli("status")
        #expect(table.stdout.contains("RESTARTS") && table.stdout.contains("AGE"), "\(table)")

        // The operator's terminate cancels the pending restart.
        try waitUntil("a pending restart\n\(daemon.output)") { try daemon.status(app).nextRestart != nil }
        #expect(try daemon.cli("terminate", app).status == 0)
        let stopped = try daemon.status(app)
        #expect(stopped.nextRestart == nil && stopped.crashLooping == false, "\(stopped)")
        #expect(stopped.state == "notRunning")
        #expect(try daemon.stop() == 0)
    }

    @Test func budgetOverrunKillIsNeverRestarted() throws {
        let app = "com.example.overrun"
        let daemon = try DaemonProcess(
            apps: [
                app: Self.loop + "<key>KeepAlive</key><true/><key>ThrottleInterval</key><real>0.2</real>"
                    + "<key>RunwayBackgroundTimeBudget</key><real>0.5</real>"
            ],
            settings: "<key>ExpirationWarningLead</key><real>0.1</real>"
        )
        defer { daemon.close() }
        let events = try daemon.client()
        #expect(try events.request(ControlRequest(command: "events")).subscribed == true)
        #expect(try daemon.cli("launch", app).status == 0)
        #expect(try daemon.cli("begin-task", app, "never-ends").status == 0)
        #expect(try daemon.cli("home", app).status == 0)
        var ended: TransitionPayload?
        while ended == nil {
            let event = try self.nextEvent(events)
            if event.to == "notRunning" { ended = event }
        }
        #expect(ended?.reason == "budgetOverrun", "\(String(describing: ended))")
        #expect(ended?.restart == nil && ended?.restartAtSeconds == nil, "\(String(describing: ended))")
        let status = try daemon.status(app)
        #expect(status.nextRestart == nil && status.restarts == 0, "\(status)")
        #expect(try daemon.stop() == 0)
    }

    @Test func historySurvivesADaemonRestart() throws {
        let app = "com.example.once"
        let first = try DaemonProcess(apps: [
            app: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                + "<string>exit 3</string></array>"
        ])
        #expect(try first.cli("launch", app).status == 0)
        try waitUntil("the app to exit\n\(first.output)") { try first.status(app).lastTermination == "exited(3)" }
        let run = try #require(try first.status(app).history?.last)
        #expect(run.reason == "exited(3)" && run.exitStatus == 3 && run.ended != nil, "\(run)")
        #expect(try first.stop() == 0)

        let second = try DaemonProcess(restarting: first)
        defer { second.close() }
        let status = try second.status(app)
        #expect(status.state == "notRunning")
        #expect(status.history == [run], "\(String(describing: status.history))")
        let describe = try second.cli("status", app)
        #expect(describe.stdout.contains("\(run.started) -> \(run.ended ?? "")  exited(3), status 3"), "\(describe)")
        let json = try second.cli("status", "--json")
        #expect(json.stdout.contains("\"history\":[{"), "\(json)")
    }
}
