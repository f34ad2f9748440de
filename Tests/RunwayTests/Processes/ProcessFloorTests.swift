import CLibUV
import Foundation
import RunwayCore
import Testing

@testable import Runway
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// Issue 15, "the process path at the floor": a freezer spawn that copies no page tables, `/proc/PID/stat` read in
/// C, and batches that read the list of this process's children once instead of once per app or per exit
/// (Decisions 160-162). Real children throughout.
@Suite("Process apps: the process path at the floor (issue 15)", .serialized)
struct ProcessFloorTests {
    /// Reads what `fd` gives until end of file.
    static func readAll(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Spawns `arguments` with `runway_spawn` into `cgroup` (joining by write when `byWrite`), stdout to a pipe;
    /// returns the spawn's status, its result and what the child printed before it exited (reaped here).
    static func spawn(
        _ arguments: [String],
        cgroup: String,
        byWrite: Bool
    ) throws -> (status: Int32, result: runway_spawn_result, output: String) {
        var pipe: [Int32] = [-1, -1]
        try #require(pipe.withUnsafeMutableBufferPointer { runway_pipe_cloexec($0.baseAddress) } == 0)
        let directory = open(cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(directory >= 0)
        defer { close(directory) }
        let argv = CStringArray(arguments)
        let envp = CStringArray(["PATH=/usr/bin:/bin"])
        var result = runway_spawn_result()
        let status = arguments[0].withCString { path in
            var request = runway_spawn_request()
            request.path = path
            request.argv = UnsafePointer(argv.pointer)
            request.envp = UnsafePointer(envp.pointer)
            request.working_directory = nil
            request.cgroup_fd = directory
            request.join_by_write = byWrite ? 1 : 0
            request.stdout_fd = pipe[1]
            request.stderr_fd = pipe[1]
            request.channel_fd = -1
            return runway_spawn(&request, &result)
        }
        close(pipe[1])
        let output = Self.readAll(pipe[0])
        close(pipe[0])
        if status == 0 {
            var info = siginfo_t()
            _ = waitid(P_PID, id_t(result.pid), &info, WEXITED)
            close(result.pidfd)
        }
        return (status, result, output)
    }

    @Test(
        "Issue 15: a freezer spawn borrows the daemon's memory (clone3 with CLONE_VM | CLONE_VFORK into the cgroup)",
        .enabled(if: ProcessTestSupport.freezerAvailable)
    )
    func freezerSpawnBorrowsMemory() throws {
        let parent = try CgroupHierarchy.discover().flatMap { $0.makeRunwayDirectory() }.get()
        let cgroup = try AppCgroup.create(in: parent, name: "com.test.floor.vm").get()
        defer {
            cgroup.remove()
            _ = rmdir(parent)  // fails, harmlessly, while another supervisor of this process uses it.
        }
        for byWrite in [false, true] {
            let started = try Self.spawn(["/bin/cat", "/proc/self/cgroup"], cgroup: cgroup.path, byWrite: byWrite)
            #expect(started.status == 0, "byWrite \(byWrite): step \(started.result.step), \(started.result.error)")
            #if arch(x86_64)
            #expect(started.result.shared_memory == 1, "byWrite \(byWrite): the child was forked")
            #endif
            // In its cgroup before the program ran: cat's own /proc/self/cgroup names it.
            let line = started.output.split(separator: "\n").first { $0.hasPrefix("0::/") } ?? ""
            #expect(!line.isEmpty && cgroup.path.hasSuffix(String(line.dropFirst(3))), "\(started.output)")
        }
        // An exec failure still comes back through the report pipe as the step and errno.
        let missing = try Self.spawn(["/nonexistent/runway-floor"], cgroup: cgroup.path, byWrite: false)
        #expect(missing.status == -ENOENT)
        #expect(missing.result.step == Int32(RUNWAY_SPAWN_EXECVE.rawValue))
    }

    @Test("Issue 15: /proc/PID/stat parsed in C gives what the Swift parser gives, odd command names included")
    func statInCMatchesTheSwiftParser() throws {
        // A program whose command name holds spaces and parentheses (the name of the link it is run through).
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runway-floor-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let odd = "\(directory)/a) (b c"
        try FileManager.default.createSymbolicLink(atPath: odd, withDestinationPath: "/bin/sleep")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: odd)
        child.arguments = ["5"]
        try child.run()
        defer {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        // Asleep in `sleep` first: a child still loading runs (R), and two reads of a changing state may differ.
        let deadline = ContinuousClock.now + .seconds(10)
        while ProcFS.stat(child.processIdentifier)?.state != "S" && ContinuousClock.now < deadline { usleep(1_000) }
        for pid in [getpid(), child.processIdentifier] {
            let swift = try #require(SystemFiles.read("/proc/\(pid)/stat").flatMap(ProcFS.parseStat))
            let c = try #require(ProcFS.stat(pid))
            #expect(c.parent == swift.parent && c.processGroup == swift.processGroup && c.session == swift.session)
            #expect(c.startTime == swift.startTime && c.startTime > 0)
            #expect(pid == getpid() || c.threads == swift.threads)
            #expect(c.state == swift.state || pid == getpid(), "\(c) \(swift)")
        }
        #expect(ProcFS.stat(Int32.max) == nil)
    }

    /// `count` `sleep 1000` apps in `mechanism`, launched; the scheduler and their identifiers.
    static func launched(_ count: Int, _ mechanism: SuspensionMechanism) throws -> (RunwayScheduler, [AppID]) {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let apps = try Self.registerSleepers(scheduler, "com.test.floor", count)
        #expect(scheduler.perform(.launch, onEach: apps).isEmpty)
        return (scheduler, apps)
    }

    /// Registers `count` apps `<prefix>.0`, `<prefix>.1`, ... each running `/bin/sleep 1000`; returns their ids.
    static func registerSleepers(_ scheduler: RunwayScheduler, _ prefix: String, _ count: Int) throws -> [AppID] {
        let apps = (0..<count).map { AppID("\(prefix).\($0)") }
        for app in apps {
            try scheduler.register(
                process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
            )
        }
        return apps
    }

    @Test(
        "Issue 15: a batch of N suspends reads this process's list of children at the confirmations, not once per app"
    )
    func batchReadsTheChildListOnce() async throws {
        let (scheduler, apps) = try Self.launched(12, .signal)
        // The batch and the count in one hop: one loop turn, in which nothing is scanned (Decision 184).
        let signalTurn = scheduler.bridge.sync { driver -> (looks: Int, total: Int) in
            let supervisor = driver.processSupervisor()
            let before = supervisor.scanCounts.ownChildrenLooks
            for app in apps { try? driver.command(.enterBackground, for: app) }
            let pending = apps.filter { supervisor.apps[$0]?.confirmation != nil }.count
            let looks = supervisor.scanCounts.ownChildrenLooks - before
            return (pending == apps.count ? looks : -pending, supervisor.scanCounts.ownChildrenLooks)
        }
        #expect(signalTurn?.looks == 0, "looks in the turn of \(apps.count) suspends (negative: not suspended)")
        // The confirmations scan each app's tree; the list of this process's children is read once per loop turn
        // of them (Decision 160), so fewer times than there are apps.
        let deadline = ContinuousClock.now + .seconds(5)
        while !scheduler.processes().values.allSatisfy(\.suspensionConfirmed) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        let looks = scheduler.bridge.sync { $0.processSupervisor().scanCounts.ownChildrenLooks }
        let confirmed = scheduler.processes().values.filter(\.suspensionConfirmed).count
        #expect(confirmed == apps.count)
        if let looks, let before = signalTurn?.total {
            #expect(
                looks - before >= 1 && looks - before < apps.count,
                "looks at the children list while \(apps.count) suspensions were confirmed"
            )
        }
        await scheduler.shutdown()
    }

    @Test("Issue 15: N exits do not sweep the whole child list N times, and an orphan that exits is still reaped")
    func exitsDoNotSweepPerExit() async throws {
        let (scheduler, apps) = try Self.launched(12, .signal)
        // One more app leaves an orphan behind that exits a little later: it must still be reaped.
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("runway-floor-\(UUID())").path
        defer { unlink(pidFile) }
        let leaver: AppID = "com.test.floor.leaver"
        try scheduler.register(
            process: ProcessTestSupport.shell(leaver, "(sleep 0.3 & echo $! > \(pidFile)); exec sleep 1000")
        )
        try scheduler.perform(.launch, on: leaver)
        let watcher = TransitionWatcher(scheduler)
        let before = scheduler.bridge.sync { $0.processSupervisor().scanCounts.zombieSweeps } ?? 0
        #expect(scheduler.perform(.terminate, onEach: apps).isEmpty)
        for app in apps { _ = await watcher.first { $0.app == app && $0.to == .notRunning } }
        let sweeps = (scheduler.bridge.sync { $0.processSupervisor().scanCounts.zombieSweeps } ?? 0) - before
        #expect(sweeps < apps.count / 2, "\(sweeps) full sweeps for \(apps.count) exits")
        // The orphan (re-parented here, this process being a subreaper) exits and is reaped by the sweep.
        let deadline = ContinuousClock.now + .seconds(10)
        var orphan: Int32?
        while ContinuousClock.now < deadline {
            orphan =
                orphan
                ?? (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { Int32($0.trimmingWhitespace) }
            if let orphan, ProcFS.stat(orphan) == nil { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let pid = try #require(orphan, "the leaver wrote no pid")
        #expect(ProcFS.stat(pid) == nil, "orphan \(pid) is \(String(describing: ProcFS.stat(pid)?.state))")
        await scheduler.shutdown()
    }
}
