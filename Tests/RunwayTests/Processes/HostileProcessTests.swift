import CLibUV
import Foundation
import RunwayCore
import Testing

@testable import Runway
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// Issue 13, items 2, 5 and 9, with real processes: a descendant that leaves the app's process group and
/// session (fork, setsid, fork again) is stopped, confirmed and killed with its app in both suspension
/// mechanisms, leaves no zombie, and no app inherits a descriptor beyond 0-2.
@Suite("Process apps: hostile descendants (issue 13)", .serialized)
struct HostileProcessTests {
    static let mechanisms = ProcessSuspensionTests.mechanisms

    /// An app whose grandchild double-forks out of the app's session: the middle process calls setsid and
    /// starts a shell that becomes `sleep 1000`, then exits, so the sleep is re-parented to this process (a
    /// child subreaper). The sleep appends its pid to `pidFile` once it ignores SIGTERM (`ignoresTERM`).
    static func escaper(_ id: AppID, pidFile: String, ignoresTERM: Bool = true) -> AppDescriptor {
        let trap = ignoresTERM ? "trap \\\"\\\" TERM; " : ""
        let inner = "sh -c '\(trap)echo \\$\\$ >> \(pidFile); exec sleep 1000' &"
        let script = "trap 'exit 0' TERM; setsid sh -c \"\(inner)\" & " + ProcessTestSupport.idleLoop
        return ProcessTestSupport.shell(id, script)
    }

    /// The pids appended to `file` so far (waits until there are `count`).
    static func pids(in file: String, count: Int = 1) async -> [Int32] {
        var pids: [Int32] = []
        _ = await eventually {
            pids =
                (try? String(contentsOfFile: file, encoding: .utf8))?.split(separator: "\n").compactMap {
                    Int32($0)
                } ?? []
            return pids.count >= count
        }
        return pids
    }

    static func temporaryFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("runway-\(UUID().uuidString)").path
    }

    /// The escapee left the app's session and was re-parented here.
    static func hasEscaped(_ pid: Int32, from app: Int32) -> Bool {
        guard let stat = ProcFS.stat(pid) else { return false }
        return stat.session != app && stat.parent == getpid()
    }

    @Test("Item 2 / P1: a double-forked descendant is suspended and confirmed with its app", arguments: mechanisms)
    func P1_doubleForkedDescendantIsSuspendedWithItsApp(mechanism: SuspensionMechanism) async throws {
        let file = Self.temporaryFile()
        defer { unlink(file) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let app: AppID = "com.test.escaper.suspend"
        try scheduler.register(process: Self.escaper(app, pidFile: file))
        try scheduler.perform(.launch, on: app)
        let main = try #require(scheduler.processes()[app]?.pid)
        let escapee = try #require(await Self.pids(in: file).first)
        #expect(await eventually { Self.hasEscaped(escapee, from: main) })

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

    @Test("Item 2 / P2: a double-forked descendant that ignores SIGTERM dies with terminate", arguments: mechanisms)
    func P2_doubleForkedDescendantDiesWithTerminate(mechanism: SuspensionMechanism) async throws {
        let file = Self.temporaryFile()
        defer { unlink(file) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.escaper.terminate"
        try scheduler.register(process: Self.escaper(app, pidFile: file))
        try scheduler.perform(.launch, on: app)
        let main = try #require(scheduler.processes()[app]?.pid)
        let escapee = try #require(await Self.pids(in: file).first)
        #expect(await eventually { Self.hasEscaped(escapee, from: main) && ProcessTestSupport.ignoresSIGTERM(escapee) })

        try scheduler.perform(.terminate, on: app)
        #expect(await watcher.first { $0.app == app && $0.to == .notRunning } != nil)
        // Gone means reaped too: a zombie still answers kill(pid, 0).
        #expect(await eventually(timeout: .seconds(3)) { ProcessTestSupport.isGone(escapee) }, "escapee survived")
        await scheduler.shutdown()
        if !ProcessTestSupport.isGone(escapee) { kill(escapee, SIGKILL) }
    }

    @Test(
        "Item 2 / P4: shutdown ends and reaps double-forked descendants, one ignoring SIGTERM, one dying of it",
        arguments: mechanisms,
        [true, false]
    )
    func P4_shutdownEndsADoubleForkedDescendant(mechanism: SuspensionMechanism, ignoresTERM: Bool) async throws {
        let file = Self.temporaryFile()
        defer { unlink(file) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let app: AppID = "com.test.escaper.shutdown"
        try scheduler.register(process: Self.escaper(app, pidFile: file, ignoresTERM: ignoresTERM))
        try scheduler.perform(.launch, on: app)
        let main = try #require(scheduler.processes()[app]?.pid)
        let escapee = try #require(await Self.pids(in: file).first)
        #expect(await eventually { Self.hasEscaped(escapee, from: main) })

        await scheduler.shutdown()
        #expect(await eventually(timeout: .seconds(3)) { ProcessTestSupport.isGone(escapee) }, "escapee survived")
        if !ProcessTestSupport.isGone(escapee) { kill(escapee, SIGKILL) }
    }

    @Test(
        "Item 5 / P2: terminating a suspended app whose descendant double-forked leaves no zombie, 7 cycles",
        arguments: mechanisms
    )
    func P2_noZombieAfterTerminatingASuspendedDoubleForker(mechanism: SuspensionMechanism) async throws {
        let file = Self.temporaryFile()
        defer { unlink(file) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.escaper.zombie"
        try scheduler.register(process: Self.escaper(app, pidFile: file))
        var zombies: [Int32] = []
        for cycle in 1...7 {
            try scheduler.perform(.launch, on: app)
            let main = try #require(scheduler.processes()[app]?.pid)
            let escapee = try #require(await Self.pids(in: file, count: cycle).last)
            #expect(await eventually { Self.hasEscaped(escapee, from: main) })
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

    @Test("Item 9: a child inherits descriptors 0-2 only, not one this process opened without O_CLOEXEC")
    func item9_childInheritsOnlyStandardDescriptors() async throws {
        let output = Self.temporaryFile()
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
