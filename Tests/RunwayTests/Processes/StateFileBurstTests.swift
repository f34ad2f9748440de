import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

/// The process state file during a burst of launches (`StateFlushSchedule`): rewritten at most once per spacing,
/// not once per loop turn, and complete once the burst is over. Real children.
@Suite("Process state file during a burst of launches", .serialized)
struct StateFileBurstTests {
    @Test("P2: a burst of launches over many loop turns rewrites the state file once per spacing, then lists all")
    func P2_burstOfLaunchesIsWrittenOncePerSpacing() async throws {
        let directory = try TemporaryPaths.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = ProcessTestSupport.options(.signal)
        options.stateFile = directory + "/state.processes"
        let scheduler = try RunwayScheduler(settings: shortSettings, processOptions: options)
        let apps = (0..<48).map { AppID("com.test.burst.state.\($0)") }
        for app in apps {
            try scheduler.register(
                process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
            )
        }
        let writesBefore = scheduler.bridge.sync { $0.processSupervisor().stateRecorder.writeCount } ?? 0
        let clock = ContinuousClock()
        let start = clock.now
        // One launch per hop: each hop is a loop turn of its own, as the slices of a RunAtLoad burst are.
        for app in apps { try scheduler.perform(.launch, on: app) }
        let elapsed = clock.now - start
        let mains =
            scheduler.bridge.sync { driver in
                apps.compactMap { driver.processSupervisor().apps[$0]?.child?.pid }
            } ?? []
        #expect(mains.count == apps.count)
        let file = ProcessStateFile(path: directory + "/state.processes")
        let listedAll = await eventually {
            let listed = Set((try? file.read().get())?.entries.map(\.process.pid) ?? [])
            return mains.allSatisfy(listed.contains)
        }
        #expect(listedAll, "every main listed once the burst is over")
        let writes = (scheduler.bridge.sync { $0.processSupervisor().stateRecorder.writeCount } ?? 0) - writesBefore
        // At most one write per spacing over the burst, one on the turn after its first launch and one after its
        // last (without the spacing: one per launch, 48).
        let spacings = Int(elapsed / .milliseconds(50))
        #expect(writes <= spacings + 2, "\(writes) writes over \(elapsed) for \(apps.count) launches")
        await scheduler.shutdown()
    }
}
