@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayControl
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

/// A task held on an app's behalf (`runway begin-task`, the control socket's `beginTask`) is the
/// daemon's. Its expiration warning runs the scheduler's own handler (a log line) and is never sent to the app,
/// not even to a protocol app that would otherwise receive `backgroundTaskWillExpire` for its own tasks.
@Suite("Tasks held on an app's behalf", .serialized)
struct HeldTaskTests {
    @Test func B4_aProtocolAppIsNotToldOfTheWarningOfATaskHeldOnItsBehalf() async throws {
        let log = Recorder<String>()
        let scheduler = try ProtocolApps.start(log)
        let watcher = TransitionWatcher(scheduler)
        let sent = Recorder<Message>()
        let app: AppID = "com.test.held"
        scheduler.observeMessages { to, message, _ in if to == app { sent.append(message) } }
        // Acknowledges every message and prints it, so that anything sent to the app shows in the log.
        let script = #"""
            read -r hello <&3
            while read -r m <&3; do
                echo "got: $m"; t=${m##*\"token\":}; echo "{\"type\":\"ack\",\"token\":${t%%[!0-9]*}}" >&3
            done
            """#
        try scheduler.register(process: ProcessTestSupport.shell(app, script, protocol: true))
        try scheduler.perform(.launch, on: app)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == app && $0.to == .active }
        // The control socket's beginTask: the same call `ControlService` makes.
        let held = try #require(try scheduler.requestBackgroundTask(withName: "operator", for: app)?.get())
        try scheduler.perform(.home, on: app)
        #expect(await watcher.first { $0.app == app && $0.to == .background } != nil)
        // The warning, lead before the deadline: the scheduler's handler logs it with the task's id.
        let warned = await eventually {
            log.values.contains {
                $0.contains("expiration warning for a task held on the app's behalf") && $0.contains("task=\(held)")
                    && $0.contains("app=\(app)")
            }
        }
        #expect(warned, "\(log.values)")
        // Nothing of it reached the app: no message, no line printed.
        #expect(sent.values == [.didFinishLaunching, .didBecomeActive, .willResignActive, .didEnterBackground])
        #expect(!log.values.contains { $0.contains("backgroundTaskWillExpire") }, "\(log.values)")
        #expect(scheduler.status().first { $0.app == app }?.state == .background)
        await scheduler.shutdown()
    }
}
