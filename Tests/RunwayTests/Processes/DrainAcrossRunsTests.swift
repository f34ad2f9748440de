@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// A suspension of a protocol app waits until the app has read its channel (`SuspensionDrain`), and the core has
/// the app `suspended` from the start, so a client may purge it while that wait goes on. The wait belongs to the
/// run: kept past the exit, the next run (launched by a client as soon as it sees the exit) would be checked
/// against it, found unread or busy while it starts, and frozen at the old wait's timeout.
@Suite("B5: a suspension waiting for the app to read its channel ends with the run", .serialized)
struct DrainAcrossRunsTests {
    @Test("B5: a run launched as its predecessor's exit is published is not frozen by that run's drain")
    func B5_aDrainDoesNotOutliveItsRun() async throws {
        var options = ProcessTestSupport.options(.auto)
        options.suspendDrainTimeout = .milliseconds(300)
        let scheduler = try RunwayScheduler(settings: shortSettings, processOptions: options)
        let app: AppID = "com.test.drain.acrossruns"
        // A protocol app that never reads its channel: its hello and didFinishLaunching stay unread.
        try scheduler.register(process: ProcessTestSupport.shell(app, ProcessTestSupport.idleLoop, protocol: true))
        // On the loop thread, in the event that publishes the first run's end: whether a drain is still kept, then
        // the next launch, whose spawn runs after this event's actions and before any tick of the supervisor.
        let kept = Recorder<Bool>()
        let bridge = scheduler.bridge
        _ = bridge.sync { driver in
            driver.addObserver { event in
                guard event.app == app, event.to == .notRunning, kept.values.isEmpty else { return }
                _ = bridge.sync { driver in
                    kept.append(driver.processSupervisor().apps[app]?.drain != nil)
                    try? driver.command(.launch, for: app)
                }
            }
        }
        try scheduler.perform(.launch, on: app)
        let first = try #require(scheduler.processes()[app]?.pid)
        let draining = bridge.sync { driver in
            let supervisor = driver.processSupervisor()
            supervisor.suspend(app)
            return supervisor.apps[app]?.drain != nil
        }
        #expect(draining == true, "the suspension waits for the unread hello and didFinishLaunching")
        kill(first, SIGKILL)

        #expect(await eventually { !kept.values.isEmpty })
        #expect(kept.values == [false], "the drain outlived the run it was for")
        #expect(await eventually { (scheduler.processes()[app]?.pid).map { $0 != first } ?? false })
        // Past the old drain's timeout (300 ms), the new run has not been suspended.
        try await Task.sleep(for: .milliseconds(600))
        #expect(scheduler.processes()[app]?.suspensionConfirmed == false)
        #expect(scheduler.status().first { $0.app == app }?.state == .inactive)
        await scheduler.shutdown()
    }
}
