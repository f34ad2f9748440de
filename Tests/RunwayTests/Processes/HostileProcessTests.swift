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

/// P1 and P2 with real processes: a descendant that leaves the app's process group and
/// session (fork, setsid, fork again) is stopped, confirmed and killed with its app in both suspension
/// mechanisms, leaves no zombie, and no app inherits a descriptor beyond 0-2.
@Suite("Process apps: hostile descendants", .serialized)
struct HostileProcessTests {
    static let mechanisms = ProcessTestSupport.mechanisms

    @Test("P1: a double-forked descendant is suspended and confirmed with its app", arguments: mechanisms)
    func P1_doubleForkedDescendantIsSuspendedWithItsApp(mechanism: SuspensionMechanism) async throws {
        let file = TemporaryPaths.file()
        defer { unlink(file) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let app: AppID = "com.test.escaper.suspend"
        try scheduler.register(process: Escapees.escaper(app, pidFile: file))
        try scheduler.perform(.launch, on: app)
        let main = try #require(scheduler.processes()[app]?.pid)
        let escapee = try #require(await Escapees.pids(in: file).first)
        #expect(await eventually { Escapees.hasEscaped(escapee, from: main) })

        try scheduler.perform(.home, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        if mechanism == .freezer, let path = scheduler.processes()[app]?.cgroupPath {
            #expect(ProcessTestSupport.cgroupEvents(path).contains("frozen 1"))
            #expect(SystemFiles.read("\(path)/cgroup.procs")?.split(separator: "\n").contains("\(escapee)") == true)
        } else {
            #expect(ProcessTestSupport.processState(escapee) == "T", "confirmed while the escapee runs")
        }

        try scheduler.perform(.summon, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        if mechanism != .freezer { #expect(ProcessTestSupport.processState(escapee) != "T") }
        await scheduler.shutdown()
        #expect(
            await eventually { ProcessTestSupport.isGone(escapee) },
            "escapee \(escapee): \(SystemFiles.read("/proc/\(escapee)/stat") ?? "gone")"
        )
    }

    @Test("P2: a double-forked descendant that ignores SIGTERM dies with terminate", arguments: mechanisms)
    func P2_doubleForkedDescendantDiesWithTerminate(mechanism: SuspensionMechanism) async throws {
        let file = TemporaryPaths.file()
        defer { unlink(file) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.escaper.terminate"
        try scheduler.register(process: Escapees.escaper(app, pidFile: file))
        try scheduler.perform(.launch, on: app)
        let main = try #require(scheduler.processes()[app]?.pid)
        let escapee = try #require(await Escapees.pids(in: file).first)
        #expect(
            await eventually { Escapees.hasEscaped(escapee, from: main) && ProcessTestSupport.ignoresSIGTERM(escapee) }
        )

        try scheduler.perform(.terminate, on: app)
        #expect(await watcher.first { $0.app == app && $0.to == .notRunning } != nil)
        // Gone means reaped too: a zombie still answers kill(pid, 0).
        #expect(await eventually(timeout: .seconds(3)) { ProcessTestSupport.isGone(escapee) }, "escapee survived")
        await scheduler.shutdown()
        if !ProcessTestSupport.isGone(escapee) { kill(escapee, SIGKILL) }
    }

    @Test(
        "P4: shutdown ends and reaps double-forked descendants, one ignoring SIGTERM, one dying of it",
        arguments: mechanisms,
        [true, false]
    )
    func P4_shutdownEndsADoubleForkedDescendant(mechanism: SuspensionMechanism, ignoresTERM: Bool) async throws {
        let file = TemporaryPaths.file()
        defer { unlink(file) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let app: AppID = "com.test.escaper.shutdown"
        try scheduler.register(process: Escapees.escaper(app, pidFile: file, ignoresTERM: ignoresTERM))
        try scheduler.perform(.launch, on: app)
        let main = try #require(scheduler.processes()[app]?.pid)
        let escapee = try #require(await Escapees.pids(in: file).first)
        #expect(await eventually { Escapees.hasEscaped(escapee, from: main) })

        await scheduler.shutdown()
        #expect(await eventually(timeout: .seconds(3)) { ProcessTestSupport.isGone(escapee) }, "escapee survived")
        if !ProcessTestSupport.isGone(escapee) { kill(escapee, SIGKILL) }
    }

    @Test(
        "P2: terminating a suspended app whose descendant double-forked leaves no zombie, 7 cycles",
        arguments: mechanisms
    )
    func P2_noZombieAfterTerminatingASuspendedDoubleForker(mechanism: SuspensionMechanism) async throws {
        let file = TemporaryPaths.file()
        defer { unlink(file) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.escaper.zombie"
        try scheduler.register(process: Escapees.escaper(app, pidFile: file))
        var zombies: [Int32] = []
        for cycle in 1...7 {
            try scheduler.perform(.launch, on: app)
            let main = try #require(scheduler.processes()[app]?.pid)
            let escapee = try #require(await Escapees.pids(in: file, count: cycle).last)
            #expect(await eventually { Escapees.hasEscaped(escapee, from: main) })
            try scheduler.perform(.home, on: app)
            #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
            try scheduler.perform(.terminate, on: app)
            #expect(await eventually { watcher.events.filter { $0.app == app && $0.to == .notRunning }.count >= cycle })
            if !(await eventually(timeout: .seconds(2)) { ProcessTestSupport.isGone(escapee) }) {
                zombies.append(escapee)
            }
        }
        #expect(
            zombies.isEmpty,
            "left as zombies (or alive): \(zombies.map { "\($0) \(ProcFS.stat($0)?.state ?? "?")" })"
        )
        await scheduler.shutdown()
        for zombie in zombies { _ = runway_reap_nonblocking(zombie) }
    }

    @Test("a child inherits descriptors 0-2 only, not one this process opened without O_CLOEXEC")
    func childInheritsOnlyStandardDescriptors() async throws {
        let output = TemporaryPaths.file()
        defer { unlink(output) }
        let leaked = open("/proc/self/status", O_RDONLY)  // No O_CLOEXEC: inherited by default.
        let high = dup2(leaked, 77)
        try #require(leaked >= 0 && high == 77)
        defer {
            close(leaked)
            close(high)
        }
        let scheduler = try RunwayScheduler(settings: shortSettings, processOptions: ProcessTestSupport.options(.auto))
        let app: AppID = "com.test.descriptors"
        try scheduler.register(
            process: ProcessTestSupport.shell(
                app,
                "(ls /proc/$$/fd) > \(output).tmp; mv \(output).tmp \(output); "
                    + ProcessTestSupport.idleLoop
            )
        )
        try scheduler.perform(.launch, on: app)
        var listed: [String] = []
        #expect(
            await eventually {
                listed =
                    (try? String(contentsOfFile: output, encoding: .utf8))?.split(separator: "\n").map(String.init)
                    ?? []
                return !listed.isEmpty
            }
        )
        #expect(listed.sorted() == ["0", "1", "2"], "the app's descriptors: \(listed); leaked \(leaked) and 77")
        await scheduler.shutdown()
    }
}
