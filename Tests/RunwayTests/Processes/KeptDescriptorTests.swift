import CLibUV
import Foundation
import RunwayCore
import Testing

@testable import Runway
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// Decision 201: a freezer run keeps its cgroup's `cgroup.freeze` and `cgroup.events` open from their first use to its
/// exit. Decision 202: registering apps grows the descriptor table ahead, so that launches do not wait for the kernel
/// to grow it.
@Suite("Descriptors kept and reserved (Decisions 201, 202)")
struct KeptDescriptorTests {
    @Test("cgroup.events text gives populated and frozen, and nothing when either is missing or not 0 or 1")
    func parsesEvents() {
        func parse(_ text: String) -> (Bool, Bool)? {
            Array(text.utf8).withUnsafeBufferPointer { AppCgroupFiles.parseEvents($0) }
        }
        #expect(parse("populated 1\nfrozen 0\n").map { [$0.0, $0.1] } == [true, false])
        #expect(parse("populated 0\nfrozen 1").map { [$0.0, $0.1] } == [false, true])
        #expect(parse("frozen 1\npopulated 1\n").map { [$0.0, $0.1] } == [true, true])
        #expect(parse("populated 1\n") == nil)
        #expect(parse("populated 1\nfrozen 2\n") == nil)
        #expect(parse("populated 1\nfrozen 10\n") == nil)
        #expect(parse("populated 1\nunfrozen 1\n") == nil)
        #expect(parse("") == nil)
    }

    @Test(
        "P1: a freezer run freezes and thaws through two kept files, which its exit closes",
        .enabled(if: ProcessTestSupport.freezerAvailable)
    )
    func P1_freezerRunKeepsItsCgroupFiles() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.freezer)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.keptcgroupfiles"
        try scheduler.register(
            process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
        )
        func kept() -> Int {
            scheduler.bridge.sync { driver -> Int in driver.processSupervisor().apps[app]?.cgroupFiles?.openCount ?? -1
            } ?? -2
        }
        try scheduler.perform(.launch, on: app)
        let path = try #require(scheduler.processes()[app]?.cgroupPath)
        #expect(kept() == 1, "cgroup.freeze, by the thaw before the launch (Decision 205)")
        try scheduler.perform(.home, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        #expect(ProcessTestSupport.cgroupEvents(path).contains("frozen 1"))
        #expect(kept() == 2)
        try scheduler.perform(.summon, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        #expect(ProcessTestSupport.cgroupEvents(path).contains("frozen 0"))
        #expect(kept() == 2)
        // Frozen again, then terminated: the exit sees the freeze through the kept file and thaws the cgroup.
        try scheduler.perform(.home, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        try scheduler.perform(.terminate, on: app)
        #expect(await watcher.first { $0.app == app && $0.to == .notRunning } != nil)
        #expect(await eventually { kept() == -1 }, "closed and dropped at the exit")
        #expect(ProcessTestSupport.cgroupEvents(path).contains("frozen 0"), "thawed for the next run")
        await scheduler.shutdown()
    }

    @Test(
        "P1 (Decision 205): a cgroup frozen by hand while its app is not running does not hang the next launch",
        .enabled(if: ProcessTestSupport.freezerAvailable),
        .timeLimit(.minutes(1))
    )
    func P1_launchIntoAFrozenIdleCgroup() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.freezer)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.frozenidle"
        try scheduler.register(
            process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
        )
        try scheduler.perform(.launch, on: app)
        let path = try #require(scheduler.processes()[app]?.cgroupPath)
        try scheduler.perform(.terminate, on: app)
        #expect(await watcher.first { $0.app == app && $0.to == .notRunning } != nil)
        #expect(await eventually { ProcessTestSupport.cgroupEvents(path).contains("populated 0") })
        // Someone with write access to the idle cgroup freezes it.
        #expect(SystemFiles.write("1", to: "\(path)/cgroup.freeze") == 0)
        #expect(await eventually { ProcessTestSupport.cgroupEvents(path).contains("frozen 1") })
        // Without the thaw, the launch below never returns: the loop waits for an exec that a frozen child never makes.
        try scheduler.perform(.launch, on: app)
        let pid = try #require(scheduler.processes()[app]?.pid)
        #expect(ProcessTestSupport.cgroupEvents(path).contains("frozen 0"))
        #expect(await eventually { ProcFS.stat(pid).map { $0.state == "S" || $0.state == "R" } ?? false })
        await scheduler.shutdown()
    }

    @Test("Registering apps grows the descriptor table to eight entries per app ahead, and opens nothing")
    func registeringReservesTheDescriptorTable() async throws {
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let count = 1_000
        let wanted = count * ProcessSupervisor.descriptorsPerApp + 64
        try #require(limit.rlim_max >= rlim_t(2 * wanted), "a hard limit of \(limit.rlim_max) is too low for this test")
        let saved = limit
        limit.rlim_cur = limit.rlim_max
        #expect(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        defer {
            var restored = saved
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restored)
        }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let before = Self.fdSize()
        let open = Self.openDescriptors()
        try #require(before < wanted, "this process's table (\(before)) is already larger than the test asks for")
        _ = try ProcessFloorTests.registerSleepers(scheduler, "com.test.reserve", count)
        #expect(Self.fdSize() >= wanted, "FDSize \(Self.fdSize()) for \(count) apps")
        #expect(Self.openDescriptors() == open, "registering opened no descriptor")
        scheduler.bridge.sync { $0.processSupervisor().reserveDescriptors() }
        #expect(Self.openDescriptors() == open)
        await scheduler.shutdown()
    }

    /// `FDSize` in /proc/self/status: how many descriptors this process's table has room for.
    static func fdSize() -> Int {
        let status = SystemFiles.read("/proc/self/status") ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("FDSize:") } ?? ""
        return Int(line.dropFirst("FDSize:".count).trimmingCharacters(in: .whitespaces)) ?? -1
    }

    static func openDescriptors() -> Int { SystemFiles.entries(of: "/proc/self/fd").count }
}
