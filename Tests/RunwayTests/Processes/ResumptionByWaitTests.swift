import CLibUV
import RunwayCore
import Testing

@testable import Runway
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// Decision 186: a resumption of an app's main process is confirmed from the kernel's wait on its pidfd
/// (`waitid(P_PIDFD, WCONTINUED | WNOHANG | WNOWAIT)`), without reading `/proc`, when the wait reports it.
@Suite("Resumption seen through the kernel's wait (Decision 186)")
struct ResumptionByWaitTests {
    @Test("The wait reports a child continued only after SIGCONT found it stopped, and not once it stops again")
    func reportFollowsStopAndContinue() throws {
        let loop = try DirectChild.makeLoop()
        let child = ChildProcess(app: "com.test.continued", loop: loop, options: ProcessOptions())
        try DirectChild.start(child, ["/bin/sleep", "1000"])
        defer { DirectChild.kill(child, closing: loop) }
        #expect(!child.kernelReportsContinued, "never stopped")
        try Self.stopAndWait(child.pid)
        #expect(!child.kernelReportsContinued, "stopped")
        #expect(runway_kill(child.pid, SIGCONT) == 0)
        #expect(child.kernelReportsContinued, "continued")
        #expect(child.kernelReportsContinued, "still reported: the look does not consume it")
        try Self.stopAndWait(child.pid)
        #expect(!child.kernelReportsContinued, "stopped again")
    }

    @Test("A batch of resumptions of signal-mode apps is confirmed through the wait, and each app runs again")
    func P1_resumptionsUseTheWait() async throws {
        let (scheduler, apps) = try ProcessFloorTests.launched(4, .signal)
        #expect(scheduler.perform(UserAction.home.command, onEach: apps).isEmpty)
        try await Self.waitUntilConfirmed(scheduler, apps.count)
        let before = scheduler.bridge.sync { $0.processSupervisor().scanCounts.continuedByWait } ?? -1
        #expect(scheduler.perform(UserAction.summon.command, onEach: apps).isEmpty)
        try await Self.waitUntilConfirmed(scheduler, apps.count)
        let after = scheduler.bridge.sync { $0.processSupervisor().scanCounts.continuedByWait } ?? -1
        #expect(after - before == apps.count)
        for status in scheduler.processes().values {
            let pid = try #require(status.pid)
            #expect(ProcFS.stat(pid)?.state != "T", "pid \(pid) runs again")
        }
        await scheduler.shutdown()
    }

    /// SIGSTOP to `pid`, then waits until `/proc` shows it stopped.
    static func stopAndWait(_ pid: Int32) throws {
        #expect(runway_kill(pid, SIGSTOP) == 0)
        let deadline = ContinuousClock.now + .seconds(10)
        while ProcFS.stat(pid)?.state != "T" && ContinuousClock.now < deadline { usleep(1_000) }
        try #require(ProcFS.stat(pid)?.state == "T")
    }

    static func waitUntilConfirmed(_ scheduler: RunwayScheduler, _ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while scheduler.processes().values.filter(\.suspensionConfirmed).count < count
            && ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(2))
        }
        try #require(scheduler.processes().values.filter(\.suspensionConfirmed).count == count)
    }
}
