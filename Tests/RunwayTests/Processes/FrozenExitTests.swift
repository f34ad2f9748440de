import RunwayCore
import Testing

@testable import Runway

#if canImport(Glibc)
import Glibc
#endif

/// Decision 188: an exit thaws the app's cgroup only when its last request was a suspension; a cgroup left frozen
/// would start the next run frozen.
@Suite("Process apps: a frozen app's cgroup is thawed at its exit (Decision 188)", .serialized)
struct FrozenExitTests {
    @Test(
        "P1/P2: an app terminated while frozen leaves its cgroup thawed, and its next run is not frozen",
        .enabled(if: ProcessTestSupport.freezerAvailable)
    )
    func P2_terminatedWhileFrozenStartsItsNextRunThawed() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.freezer)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.frozen.exit"
        try scheduler.register(process: ProcessTestSupport.shell(app, ProcessTestSupport.idleLoop))
        try scheduler.perform(.launch, on: app)
        try scheduler.perform(.home, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        let path = try #require(scheduler.processes()[app]?.cgroupPath)
        #expect(ProcessTestSupport.cgroupEvents(path).contains("frozen 1"))

        try scheduler.perform(.terminate, on: app)
        #expect(await watcher.first { $0.app == app && $0.to == .notRunning } != nil)
        #expect(ProcessTestSupport.cgroupEvents(path).contains("frozen 0"), "thawed at the exit")

        try scheduler.perform(.launch, on: app)
        let pid = try #require(scheduler.processes()[app]?.pid)
        #expect(scheduler.processes()[app]?.cgroupPath == path)
        #expect(ProcessTestSupport.cgroupEvents(path).contains("frozen 0"))
        #expect(ProcessTestSupport.processState(pid) != "T")
        await scheduler.shutdown()
    }
}
