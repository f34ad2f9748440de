import Runway
@_spi(Driver) import RunwayCore
import Testing

@Suite struct TransitionObserverTests {
    @Test func L8_observersSeeEveryTransitionInOrderOnTheLoopThread() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let seen = Recorder<String>()
        scheduler.observeTransitions { event in seen.append("\(event.from)->\(event.to)") }
        let watcher = TransitionWatcher(scheduler)
        try scheduler.register(AppDescriptor(id: "com.example.mail"), delegate: RecordingDelegate())
        try scheduler.perform(.launch, on: "com.example.mail")
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == "com.example.mail" && $0.to == .active }
        try scheduler.perform(.home, on: "com.example.mail")
        _ = await watcher.first { $0.to == .suspended }
        await scheduler.shutdown()
        let streamed = await watcher.eventsAfterShutdown().map { "\($0.from)->\($0.to)" }
        #expect(
            seen.values == [
                "notRunning->inactive", "inactive->active", "active->background", "background->suspended",
                "suspended->notRunning",
            ]
        )
        #expect(seen.values == streamed)
    }
}
