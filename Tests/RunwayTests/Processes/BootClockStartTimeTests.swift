import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// A main process's identity from the boot clock around its spawn, without reading `/proc/PID/stat`.
@Suite("Process apps: the start time from the boot clock")
struct BootClockStartTimeTests {
    @Test("the tick both readings fall in, none when a tick boundary lies between them")
    func ticksBetweenReadings() {
        let tick: UInt64 = 10_000_000
        #expect(BootClockStartTime.ticks(before: 120_000_000, after: 129_999_999, nanosecondsPerTick: tick) == 12)
        #expect(BootClockStartTime.ticks(before: 129_999_999, after: 130_000_000, nanosecondsPerTick: tick) == nil)
        #expect(BootClockStartTime.ticks(before: 5, after: 4, nanosecondsPerTick: tick) == nil, "a clock back")
        #expect(BootClockStartTime.ticks(before: nil, after: 4, nanosecondsPerTick: tick) == nil)
        #expect(BootClockStartTime.ticks(before: 4, after: 5, nanosecondsPerTick: nil) == nil)
        #expect(BootClockStartTime.nanosecondsPerTick == 1_000_000_000 / UInt64(sysconf(Int32(_SC_CLK_TCK))))
    }

    @Test(
        "every launched main process is tracked with the start time /proc/PID/stat shows, most without reading it",
        arguments: [SuspensionMechanism.signal, .freezer]
    )
    func identitiesMatchProc(mechanism: SuspensionMechanism) async throws {
        let (scheduler, apps) = try LaunchedApps.launched(20, mechanism)
        try await LaunchedApps.waitForIdentities(scheduler, apps)
        let (tracked, fromClock, reads) = try #require(
            scheduler.bridge.sync { driver in
                let supervisor = driver.processSupervisor()
                let tracked = apps.compactMap { app -> (Int32, UInt64)? in
                    guard let managed = supervisor.apps[app], let child = managed.child,
                        let identity = managed.tracked.first(where: { $0.pid == child.pid })
                    else { return nil }
                    return (identity.pid, identity.startTime)
                }
                return (tracked, supervisor.scanCounts.identitiesFromClock, supervisor.scanCounts.identityReads)
            }
        )
        #expect(tracked.count == apps.count)
        for (pid, startTime) in tracked {
            #expect(ProcFS.stat(pid)?.startTime == startTime, "\(mechanism): pid \(pid)")
        }
        #expect(fromClock + reads == apps.count)
        #expect(fromClock >= 1, "a tick boundary fell inside every one of \(apps.count) spawns")
        await scheduler.shutdown()
    }
}
