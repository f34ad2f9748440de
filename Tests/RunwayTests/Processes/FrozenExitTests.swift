import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// An app's cgroup between runs: an exit thaws it only when its last request was a suspension, since a cgroup left
/// frozen would start the next run frozen; a cgroup frozen, removed or re-created by someone else does not keep
/// the next run from starting or from being frozen.
@Suite("Process apps: an app's cgroup at its exit and between runs", .serialized)
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

    @Test(
        "P1/P2: a cgroup frozen by someone else is thawed at the app's exit; its next run starts",
        .enabled(if: ProcessTestSupport.freezerAvailable)
    )
    func P2_externallyFrozenCgroupIsThawedAtExit() async throws {
        let started = TemporaryPaths.file()
        defer { unlink(started) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.freezer)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.frozen.elsewhere"
        try scheduler.register(
            process: ProcessTestSupport.shell(app, "echo run >> \(started); exec /bin/sleep 1000")
        )
        try scheduler.perform(.launch, on: app)
        #expect(await eventually { ((try? String(contentsOfFile: started, encoding: .utf8)) ?? "") == "run\n" })
        let path = try #require(scheduler.processes()[app]?.cgroupPath)
        // An operator (root) freezes the app's cgroup; Runway never asked for a suspension. SIGTERM then ends the
        // frozen sleep (a fatal signal reaches a frozen task), leaving the cgroup empty: nothing is killed through
        // cgroup.kill, so the cgroup is not re-created for the next run.
        #expect(await ProcessTestSupport.freezeFromOutside(path))

        try scheduler.perform(.terminate, on: app)
        #expect(await watcher.first { $0.app == app && $0.to == .notRunning } != nil)
        #expect(ProcessTestSupport.cgroupEvents(path).contains("frozen 0"), "not thawed at the exit")

        // A launch into a frozen cgroup blocks in the spawn (the CLONE_VFORK child is frozen before its exec, its
        // parent waits for the exec) and the loop with it: a rescue thaws the cgroup from outside after 3 s, so that
        // this test fails instead of hanging.
        let rescued = Recorder<Bool>()
        DispatchQueue.global().asyncAfter(deadline: .now() + 3) {
            guard ProcessTestSupport.cgroupEvents(path).contains("frozen 1") else { return }
            rescued.append(true)
            _ = SystemFiles.write("0", to: "\(path)/cgroup.freeze")
        }
        try scheduler.perform(.launch, on: app)
        #expect(rescued.values.isEmpty, "the launch waited until the cgroup was thawed from outside")
        let ran = await eventually(timeout: .seconds(3)) {
            ((try? String(contentsOfFile: started, encoding: .utf8)) ?? "") == "run\nrun\n"
        }
        #expect(ran, "the next run never ran: \(ProcessTestSupport.cgroupEvents(path))")
        _ = SystemFiles.write("0", to: "\(path)/cgroup.freeze")
        await scheduler.shutdown()
    }

    @Test(
        "P1: Runway's cgroup directory removed and re-created between runs: the next run is frozen",
        .enabled(if: ProcessTestSupport.freezerAvailable)
    )
    func P1_recreatedCgroupDirectoryStillFreezes() async throws {
        let app: AppID = "com.test.recreated"
        let (scheduler, path) = try await LaunchedApps.freezerAppRanOnce(app)
        let parent = (path as NSString).deletingLastPathComponent
        // An operator (root) removes Runway's directory and makes it again, with the app's cgroup in it.
        #expect(rmdir(path) == 0, "rmdir \(path): errno \(errno)")
        #expect(rmdir(parent) == 0, "rmdir \(parent): errno \(errno)")
        #expect(mkdir(parent, 0o755) == 0 && mkdir(path, 0o755) == 0)

        try scheduler.perform(.launch, on: app)
        let pid = try #require(scheduler.processes()[app]?.pid)
        #expect(
            SystemFiles.read("\(path)/cgroup.procs")?.split(separator: "\n").contains("\(pid)") == true,
            "the run is in \(path)"
        )
        try scheduler.perform(.home, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true }, "never confirmed")
        #expect(ProcessTestSupport.cgroupEvents(path).contains("frozen 1"), "\(ProcessTestSupport.cgroupEvents(path))")
        await scheduler.shutdown()
    }

    @Test(
        "P1: an app's cgroup removed between its runs is made again by the next launch",
        .enabled(if: ProcessTestSupport.freezerAvailable)
    )
    func P1_removedAppCgroupIsMadeAgain() async throws {
        let app: AppID = "com.test.removed"
        let (scheduler, path) = try await LaunchedApps.freezerAppRanOnce(app)
        // An operator (root) removes the idle app's cgroup; Runway's directory stays.
        #expect(rmdir(path) == 0, "rmdir \(path): errno \(errno)")

        try scheduler.perform(.launch, on: app)
        let pid = try #require(scheduler.processes()[app]?.pid, "the launch failed: \(scheduler.status())")
        #expect(scheduler.processes()[app]?.cgroupPath == path)
        #expect(
            SystemFiles.read("\(path)/cgroup.procs")?.split(separator: "\n").contains("\(pid)") == true,
            "the run is in \(path) again"
        )
        await scheduler.shutdown()
    }
}
