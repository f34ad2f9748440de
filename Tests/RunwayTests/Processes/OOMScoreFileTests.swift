@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// A child's `oom_score_adj` is written through a descriptor opened at the first write and kept for the
/// run; it is closed at the exit.
@Suite("oom_score_adj through a descriptor kept for the run", .serialized)
struct OOMScoreFileTests {
    @Test("P3: Home opens the child's oom_score_adj and writes 1000, summon writes 0 through it, the exit closes it")
    func P3_oomScoreDescriptorFollowsTheRun() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.oom.file"
        try scheduler.register(process: ProcessTestSupport.shell(app, ProcessTestSupport.idleLoop))
        try scheduler.perform(.launch, on: app)
        let pid = try #require(scheduler.processes()[app]?.pid)
        func file() -> Int32? { scheduler.bridge.sync { $0.processSupervisor().apps[app]?.child?.oomScoreFile ?? -2 } }
        #expect(file() == -1, "a launch with the inherited value writes nothing")

        try scheduler.perform(.home, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        #expect(ProcFS.oomScoreAdjust(pid) == 1000)
        let opened = try #require(file())
        #expect(opened >= 0)

        try scheduler.perform(.summon, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        #expect(ProcFS.oomScoreAdjust(pid) == 0)
        #expect(file() == opened, "the same descriptor")

        try scheduler.perform(.terminate, on: app)
        #expect(await watcher.first { $0.app == app && $0.to == .notRunning } != nil)
        let afterExit = scheduler.bridge.sync { driver -> (Int32, Int32)? in
            guard let child = driver.processSupervisor().apps[app]?.child else { return nil }
            return (child.oomScoreFile, child.writeOOMScore(500))
        }
        #expect(afterExit??.0 == -1, "closed at the exit")
        #expect(afterExit??.1 == ESRCH, "no write after the exit")
        await scheduler.shutdown()
    }
}
