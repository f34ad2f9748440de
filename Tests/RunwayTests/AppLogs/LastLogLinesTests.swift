@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayLocking
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayControl
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

/// The run history's log lines: `RunwayScheduler.lastLogLines(of:count:)` called from a transition
/// observer when a run ends has that run's last lines; the next launch moves them to the previous ring.
@Suite("lastLogLines: a run's last lines when it ends", .serialized)
struct LastLogLinesTests {
    @Test("At the notRunning transition the ring holds the run's last words; a relaunch starts a new ring")
    func lastWordsAtTheExit() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let app: AppID = "com.test.lastwords"
        let captured = RunwayLock<[[String]]>([])
        scheduler.observeTransitions { event in
            guard event.app == app, event.to == .notRunning else { return }
            // On the loop thread: the call runs inline.
            let lines = scheduler.lastLogLines(of: app, count: 2)
            captured.withLock { $0.append(lines) }
        }
        let watcher = TransitionWatcher(scheduler)
        try scheduler.register(
            process: ProcessTestSupport.shell(app, "echo one; echo two; echo 'last words' >&2; exit 3")
        )
        try scheduler.perform(.launch, on: app)
        #expect(await watcher.first { $0.app == app && $0.to == .notRunning } != nil)
        let first = try #require(captured.withLock { $0.first })
        #expect(first.count == 2, "\(first)")
        #expect(first.contains { $0.hasSuffix("Z stderr last words") }, "\(first)")
        #expect(scheduler.lastLogLines(of: "com.test.nobody", count: 5).isEmpty)
        #expect(scheduler.appLogRing(of: app, previous: true) == nil, "one run: no previous ring")

        try scheduler.perform(.launch, on: app)
        #expect(await eventually { captured.withLock { $0.count } == 2 })
        let previous = try #require(scheduler.appLogRing(of: app, previous: true))
        #expect(previous.count == 3 && previous.all.map(\.text).contains("last words"))
        await scheduler.shutdown()
    }
}
