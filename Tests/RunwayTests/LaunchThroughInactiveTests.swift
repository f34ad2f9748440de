import Runway
@_spi(Driver) import RunwayCore
import Testing

/// L9 on the real loop with an embedded app: the app reads `inactive` inside `didFinishLaunching` and `active` in
/// `didBecomeActive`, and both steps of the launch are published.
@Suite struct LaunchThroughInactiveTests {
    /// Records the state the app reads inside each launch message.
    final class StateReadingDelegate: RunwayAppDelegate {
        let seen = Recorder<String>()

        func didFinishLaunching(_ application: RunwayApplication) async {
            self.seen.append("didFinishLaunching \(application.state)")
        }

        func didBecomeActive(_ application: RunwayApplication) async {
            self.seen.append("didBecomeActive \(application.state)")
        }
    }

    @Test func L9_anEmbeddedAppIsInactiveInsideDidFinishLaunchingAndActiveAfter() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let delegate = StateReadingDelegate()
        let mail: AppID = "com.example.mail"
        try scheduler.register(AppDescriptor(id: mail), delegate: delegate)
        try scheduler.perform(.launch, on: mail)
        #expect(await eventually { delegate.seen.values.count == 2 }, "\(delegate.seen.values)")
        #expect(delegate.seen.values == ["didFinishLaunching inactive", "didBecomeActive active"])
        let steps = watcher.events.map { "\($0.from)->\($0.to) \($0.cause) \($0.messages)" }
        #expect(
            steps == [
                "notRunning->inactive command(launch) [didFinishLaunching]",
                "inactive->active command(launch) [didBecomeActive]",
            ]
        )
        await scheduler.shutdown()
    }
}
