import CRunwayProcess
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// A resumption of an app's main process is confirmed from the kernel's wait on its pidfd
/// (`waitid(P_PIDFD, WCONTINUED | WNOHANG | WNOWAIT)`), without reading `/proc`, when the wait reports it.
@Suite("Resumption seen through the kernel's wait")
struct ResumptionByWaitTests {
    @Test("The wait reports a child continued only after SIGCONT found it stopped, and not once it stops again")
    func reportFollowsStopAndContinue() throws {
        let loop = try DirectChild.makeLoop()
        let child = ChildProcess(app: "com.test.continued", loop: loop, options: ProcessOptions())
        try DirectChild.start(child, ["/bin/sleep", "1000"])
        defer { DirectChild.kill(child, closing: loop) }
        #expect(!child.kernelReportsContinued, "never stopped")
        try LaunchedApps.stopAndWait(child.pid)
        #expect(!child.kernelReportsContinued, "stopped")
        #expect(runway_kill(child.pid, SIGCONT) == 0)
        #expect(child.kernelReportsContinued, "continued")
        #expect(child.kernelReportsContinued, "still reported: the look does not consume it")
        try LaunchedApps.stopAndWait(child.pid)
        #expect(!child.kernelReportsContinued, "stopped again")
    }

    @Test("A batch of resumptions of signal-mode apps is confirmed through the wait, and each app runs again")
    func P1_resumptionsUseTheWait() async throws {
        let (scheduler, apps) = try LaunchedApps.launched(4, .signal)
        #expect(scheduler.perform(UserAction.home.command, onEach: apps).isEmpty)
        try await LaunchedApps.waitUntilConfirmed(scheduler, apps.count)
        let before = scheduler.bridge.sync { $0.processSupervisor().scanCounts.continuedByWait } ?? -1
        #expect(scheduler.perform(UserAction.summon.command, onEach: apps).isEmpty)
        try await LaunchedApps.waitUntilConfirmed(scheduler, apps.count)
        let after = scheduler.bridge.sync { $0.processSupervisor().scanCounts.continuedByWait } ?? -1
        #expect(after - before == apps.count)
        for status in scheduler.processes().values {
            let pid = try #require(status.pid)
            #expect(ProcFS.stat(pid)?.state != "T", "pid \(pid) runs again")
        }
        await scheduler.shutdown()
    }
}
