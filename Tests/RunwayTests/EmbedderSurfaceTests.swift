@_spi(Processes) import Runway
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

/// What an embedder names with `import Runway` and `import RunwayCore` alone: the process and loop types that live
/// in RunwayProcesses and RunwayLoop (re-exported by Runway), and a driver of its own over the core's `Scheduler`
/// and `ActionRunner`. This file imports nothing else, so it does not compile if one of them is out of reach.
@Suite struct EmbedderSurfaceTests {
    @Test("The process and loop options are named through import Runway")
    func processAndLoopOptionsAreNamedThroughRunway() {
        var options = ProcessOptions()
        options.suspensionMechanism = SuspensionMechanism.signal
        options.memoryPressure = MemoryPressureOptions(source: .rss(ceilingBytes: 1 << 30))
        let statuses: [AppID: ProcessStatus] = [:]
        let mechanism: ResolvedSuspensionMechanism = .signal
        let containment: AppContainment = .contained
        let priority: LoopThreadPriority = .inherited

        #expect(options.suspensionMechanism == .signal)
        #expect(options.memoryPressure?.source == .rss(ceilingBytes: 1 << 30))
        #expect(statuses.isEmpty && mechanism.description == "signal" && containment.isContained)
        #expect(priority == .inherited)
    }

    @Test("A custom driver runs the core's actions with ActionRunner and a host of its own")
    func aCustomDriverRunsTheCoresActionsWithActionRunner() throws {
        final class RecordingHost: AppHost {
            var delivered: [Message] = []
            func deliver(_ message: Message, token: MessageToken, to app: AppID) { self.delivered.append(message) }
            func spawn(_ app: AppID) {}
            func suspend(_ app: AppID) {}
            func resume(_ app: AppID) {}
            func stop(_ app: AppID) {}
            func sendTerminateSignal(_ app: AppID) {}
            func kill(_ app: AppID) {}
        }
        let host = RecordingHost()
        let runner = ActionRunner(
            core: Scheduler(settings: SchedulerSettings()),
            now: { Instant(nanosecondsSinceOrigin: 0) }
        )
        runner.embeddedHost = host
        let app: AppID = "com.example.custom"
        try runner.register(AppDescriptor(id: app))

        try runner.attempt { core, now throws(SchedulerError) in try core.commandReceived(.launch, for: app, now: now) }

        // Launch (L1) sends the first lifecycle message; the host holds it until it returns (L2).
        #expect(host.delivered == [.didFinishLaunching])
    }
}
