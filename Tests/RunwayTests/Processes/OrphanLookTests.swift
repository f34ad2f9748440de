import CRunwayProcess
import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// The look for an exited orphan to reap (`waitid(P_ALL, WNOWAIT)`, which walks every child of this process up to
/// the first exited one) is made once per loop turn for all the SIGCHLDs and exits of the turn before, not once per
/// SIGCHLD and once per exit: N exits cost N such walks of up to N children otherwise. An orphan that exits later is
/// still reaped through its own SIGCHLD (`ProcessBatchTests.exitsDoNotSweepPerExit`).
@Suite("Process apps: the look for exited orphans", .serialized)
struct OrphanLookTests {
    @Test("the exits of 12 apps seen in one loop turn make one look for an exited orphan in a turn, not one per exit")
    func exitsInOneTurnLookOnce() async throws {
        let (scheduler, apps) = try LaunchedApps.launched(12, .signal)
        let watcher = TransitionWatcher(scheduler)
        let before = scheduler.bridge.sync { driver -> Int in
            let supervisor = driver.processSupervisor()
            let pids = apps.compactMap { supervisor.apps[$0]?.child?.pid }
            for pid in pids { _ = runway_kill(pid, SIGKILL) }
            // The loop is held here until every child is a zombie: its next turn sees every exit and SIGCHLD.
            let deadline = ContinuousClock.now + .seconds(10)
            while pids.contains(where: { ProcFS.stat($0)?.state != "Z" }) && ContinuousClock.now < deadline {
                usleep(1_000)
            }
            return supervisor.scanCounts.zombieLooks
        }
        for app in apps { _ = await watcher.first { $0.app == app && $0.to == .notRunning } }
        try await Task.sleep(for: .milliseconds(50))
        // Counted per loop turn: SIGCHLDs of other tests' processes in this process ask for looks of their own.
        let counts = try #require(scheduler.bridge.sync { $0.processSupervisor().scanCounts })
        #expect(counts.zombieLooks > (before ?? 0), "the exits were looked after")
        #expect(counts.zombieLooksInOneTurnMost == 1, "\(counts.zombieLooksInOneTurnMost) looks in one turn")
        await scheduler.shutdown()
    }
}
