import CLibUV
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

/// A freezer run keeps its cgroup's `cgroup.freeze` and `cgroup.events` open from their first use to its exit.
/// Registering apps grows the descriptor table ahead, so that launches do not wait for the kernel to grow it; the
/// reservation opens nothing it leaves behind, stays within RLIMIT_NOFILE and keeps the host's record locks.
@Suite("Descriptors kept and reserved", .serialized)
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
        #expect(kept() == 1, "cgroup.freeze, by the thaw before the launch")
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
        "P1: a cgroup frozen by hand while its app is not running does not hang the next launch",
        .enabled(if: ProcessTestSupport.freezerAvailable),
        .timeLimit(.minutes(1))
    )
    func P1_launchIntoAFrozenIdleCgroup() async throws {
        let app: AppID = "com.test.frozenidle"
        let (scheduler, path) = try await LaunchedApps.freezerAppRanOnce(app)
        // Someone with write access to the idle cgroup freezes it.
        #expect(await ProcessTestSupport.freezeFromOutside(path))
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
        let before = DescriptorTable.fdSize()
        let open = DescriptorTable.openDescriptors()
        try #require(before < wanted, "this process's table (\(before)) is already larger than the test asks for")
        _ = try LaunchedApps.registerSleepers(scheduler, "com.test.reserve", count)
        #expect(DescriptorTable.fdSize() >= wanted, "FDSize \(DescriptorTable.fdSize()) for \(count) apps")
        #expect(DescriptorTable.openDescriptors() == open, "registering opened no descriptor")
        scheduler.bridge.sync { $0.processSupervisor().reserveDescriptors() }
        #expect(DescriptorTable.openDescriptors() == open)
        await scheduler.shutdown()
    }

    @Test("a reservation above RLIMIT_NOFILE, a full top slot, closed 0-2: nothing opened or left, errors kept")
    func reservationEdges() throws {
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let soft = Int32(clamping: limit.rlim_cur)
        #expect(runway_reserve_descriptors(soft + 1) == -EINVAL)
        // The last slot taken: nothing free from there up.
        let open = DescriptorTable.openDescriptors()
        #expect(dup2(2, soft - 1) == soft - 1)
        #expect(runway_reserve_descriptors(soft) == -EMFILE)
        close(soft - 1)
        #expect(DescriptorTable.openDescriptors() == open)
        // 0, 1 and 2 closed (a host that closed them): the reservation's own descriptor is duplicated, and both closed.
        let wanted = Int32(min(Int(soft), 2 * DescriptorTable.fdSize()))
        let saved = (0..<3).map { fcntl($0, F_DUPFD_CLOEXEC, 100) }
        for fd in Int32(0)..<3 { close(fd) }
        let status = runway_reserve_descriptors(wanted)
        let closed = (Int32(0)..<3).map { fcntl($0, F_GETFD) }
        for (fd, copy) in saved.enumerated() {
            dup2(copy, Int32(fd))
            close(copy)
        }
        #expect(status == 0)
        #expect(closed == [-1, -1, -1], "0-2 stay closed")
        #expect(DescriptorTable.openDescriptors() == open)
        #expect(DescriptorTable.fdSize() >= Int(wanted))
    }

    @Test("with RLIMIT_NOFILE below the reservation, registering reserves up to the limit and opens nothing")
    func reservationWithinALowLimit() async throws {
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let saved = limit
        defer {
            var restored = saved
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restored)
        }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let open = DescriptorTable.openDescriptors()
        try #require(open < 200 && limit.rlim_cur >= 300)
        limit.rlim_cur = 300
        #expect(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        _ = try LaunchedApps.registerSleepers(scheduler, "com.test.reserve.low", 100)
        #expect(scheduler.bridge.sync { $0.processSupervisor().reservedDescriptors } == 300, "capped at the limit")
        #expect(DescriptorTable.openDescriptors() == open)
        await scheduler.shutdown()
    }

    /// True when another process can take a write lock on `path` now (`lockf` without waiting).
    static func othersCanLock(_ path: String) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c", "import fcntl, sys; fcntl.lockf(open(sys.argv[1], 'r+'), fcntl.LOCK_EX | fcntl.LOCK_NB)",
            path,
        ]
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    @Test("a host's POSIX lock on the file its descriptor 0 names survives a reservation")
    func reservationKeepsTheHostsRecordLocks() throws {
        let path = TemporaryPaths.file()
        defer { unlink(path) }
        try #require(FileManager.default.createFile(atPath: path, contents: Data("pid\n".utf8)))
        // A daemonized host: 0 closed, then its pid file opened (so it is descriptor 0) and locked with fcntl.
        let saved = fcntl(0, F_DUPFD_CLOEXEC, 100)
        defer {
            dup2(saved, 0)
            close(saved)
        }
        let file = Glibc.open(path, O_RDWR)
        try #require(file >= 0 && dup2(file, 0) == 0)
        close(file)
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        try #require(fcntl(0, F_SETLK, &lock) == 0)
        try #require(try !Self.othersCanLock(path), "the host holds the lock")
        #expect(runway_reserve_descriptors(64) == 0)
        #expect(try !Self.othersCanLock(path), "a close of a copy of descriptor 0 released the host's lock")
    }
}
