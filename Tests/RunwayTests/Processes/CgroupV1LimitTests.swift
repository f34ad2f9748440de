import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// `MemoryMax`, `TasksMax` and `CPUWeight` on a host whose cgroup v2 lacks the controllers (a hybrid host): each
/// app gets a leaf of its own in the controller's cgroup v1 hierarchy, joined by the child before its exec, and the
/// kernel enforces the ceiling there, in either suspension mode.
@Suite("Process apps: cgroup ceilings on cgroup v1 where cgroup v2 lacks the controller", .serialized)
struct CgroupV1LimitTests {
    static let mechanisms: [SuspensionMechanism] =
        ProcessTestSupport.freezerAvailable ? [.signal, .freezer] : [.signal]

    /// This process's directory in `controller`'s v1 hierarchy, or nil.
    static func own(_ controller: String) -> String? {
        CgroupV1Limits.locate(
            controller,
            mountinfo: SystemFiles.read("/proc/self/mountinfo", limitBytes: 1 << 20) ?? "",
            membership: SystemFiles.read("/proc/self/cgroup") ?? ""
        )
    }

    /// The app's v1 leaf for `controller`.
    static func leaf(_ controller: String, _ app: AppID) -> String {
        let own = Self.own(controller) ?? "/nonexistent"
        return "\(own == "/" ? "" : own)/runway.\(getpid())/\(app.bundleIdentifier)"
    }

    /// True when `controller` would be taken from cgroup v1 here: on v1, and not offered to Runway on v2.
    static func onV1Only(_ controller: String) -> Bool {
        Self.own(controller) != nil && ProcessTestSupport.controllerMissing(controller)
    }

    static func scheduler(_ mechanism: SuspensionMechanism) throws -> RunwayScheduler {
        try RunwayScheduler(settings: shortSettings, processOptions: ProcessTestSupport.options(mechanism))
    }

    @Test(
        "TasksMax: forks beyond the ceiling fail, counted in the app's v1 leaf, removed when the scheduler stops",
        .enabled(if: CgroupV1LimitTests.onV1Only("pids"), "needs pids on cgroup v1 and not on v2"),
        arguments: mechanisms
    )
    func P5_tasksMaxBoundsTheAppsProcesses(mechanism: SuspensionMechanism) async throws {
        let scheduler = try Self.scheduler(mechanism)
        let app: AppID = "com.test.limits.v1tasks"
        // Eight forks, each refused one counted; the main process outlives them.
        let forks = """
            import os, time
            for i in range(8):
                try:
                    if os.fork() == 0:
                        time.sleep(30)
                        os._exit(0)
                except OSError:
                    pass
            time.sleep(30)
            """
        var spec = ProcessSpec(arguments: ["/usr/bin/python3", "-c", forks])
        spec.limits = ProcessLimits(tasksMax: 4)
        try scheduler.register(process: AppDescriptor(id: app, kind: .process(spec)))
        try scheduler.perform(.launch, on: app)
        let leaf = Self.leaf("pids", app)
        // pids.events counts the forks the ceiling refused.
        let refused = await eventually(timeout: .seconds(5)) {
            (SystemFiles.read("\(leaf)/pids.events") ?? "").trimmingCharacters(in: .whitespacesAndNewlines) == "max 5"
        }
        #expect(refused, "\(SystemFiles.read("\(leaf)/pids.events") ?? "no \(leaf)/pids.events")")
        #expect(SystemFiles.read("\(leaf)/pids.max") == "4\n")
        let members = (SystemFiles.read("\(leaf)/cgroup.procs") ?? "").split(separator: "\n")
        #expect(members.count == 4, "\(members)")
        let pid = try #require(scheduler.processes()[app]?.pid)
        #expect(members.contains(Substring("\(pid)")), "the main process \(pid) is in \(leaf): \(members)")
        await scheduler.shutdown()
        #expect(access(leaf, F_OK) != 0, "\(leaf) is removed when the scheduler stops")
    }

    @Test(
        "MemoryMax: an app allocating past the ceiling is killed by the kernel; without the key it runs to its end",
        .enabled(if: CgroupV1LimitTests.onV1Only("memory"), "needs memory on cgroup v1 and not on v2"),
        arguments: mechanisms
    )
    func P5_memoryMaxKillsAnAppAboveIt(mechanism: SuspensionMechanism) async throws {
        let allocate = ["/usr/bin/python3", "-c", "b = b'x' * (128 << 20)"]
        for (memoryMax, expected) in [(UInt64(32 << 20), TerminationReason.signaled(SIGKILL)), (nil, .exited(0))] {
            let scheduler = try Self.scheduler(mechanism)
            let watcher = TransitionWatcher(scheduler)
            let app: AppID = "com.test.limits.v1memory"
            var spec = ProcessSpec(arguments: allocate)
            spec.limits = ProcessLimits(memoryMaxBytes: memoryMax)
            try scheduler.register(process: AppDescriptor(id: app, kind: .process(spec)))
            try scheduler.perform(.launch, on: app)
            let gone = await watcher.first { $0.app == app && $0.to == .notRunning }
            #expect(
                gone?.cause == .terminated(expected),
                "MemoryMax \(String(describing: memoryMax)): \(String(describing: gone))"
            )
            await scheduler.shutdown()
        }
    }

    @Test(
        "CPUWeight: the app's v1 leaf gets systemd's cpu.shares for the weight, and the app runs in it",
        .enabled(if: CgroupV1LimitTests.onV1Only("cpu"), "needs cpu on cgroup v1 and not on v2")
    )
    func P5_cpuWeightSetsTheSharesOfTheAppsLeaf() async throws {
        let scheduler = try Self.scheduler(.signal)
        let app: AppID = "com.test.limits.v1cpu"
        var spec = ProcessSpec(arguments: ["/bin/sleep", "30"])
        spec.limits = ProcessLimits(cpuWeight: 50)
        try scheduler.register(process: AppDescriptor(id: app, kind: .process(spec)))
        try scheduler.perform(.launch, on: app)
        let leaf = Self.leaf("cpu", app)
        #expect(SystemFiles.read("\(leaf)/cpu.shares") == "512\n")
        let pid = try #require(scheduler.processes()[app]?.pid)
        #expect((SystemFiles.read("\(leaf)/cgroup.procs") ?? "").split(separator: "\n").contains(Substring("\(pid)")))
        await scheduler.shutdown()
    }

    @Test(
        "A dead daemon's v1 directory is swept, what runs in it killed, before the first leaf is made",
        .enabled(if: CgroupV1LimitTests.own("pids") != nil, "needs pids on cgroup v1")
    )
    func P5_aDeadDaemonsDirectoryIsSwept() throws {
        let own = try #require(Self.own("pids"))
        let base = own == "/" ? "" : own
        // A pid that is gone: a child that has exited and been waited for.
        let done = Process()
        done.executableURL = URL(fileURLWithPath: "/bin/true")
        try done.run()
        done.waitUntilExit()
        let stale = "\(base)/runway.\(done.processIdentifier)"
        try #require(mkdir(stale, 0o755) == 0 && mkdir("\(stale)/com.test.stale", 0o755) == 0)
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["30"]
        try sleeper.run()
        #expect(SystemFiles.write("\(sleeper.processIdentifier)", to: "\(stale)/com.test.stale/cgroup.procs") == 0)

        let limits = CgroupV1Limits()
        let leaf = limits.apply(controller: "pids", file: "pids.max", value: "7", app: "com.test.fresh")
        #expect(leaf == .success("\(base)/runway.\(getpid())/com.test.fresh"))
        #expect(access(stale, F_OK) != 0, "\(stale) is removed")
        sleeper.waitUntilExit()
        #expect(sleeper.terminationReason == .uncaughtSignal && sleeper.terminationStatus == SIGKILL)
        limits.close()
        #expect(access("\(base)/runway.\(getpid())/com.test.fresh", F_OK) != 0, "close() removes the leaf")
    }
}

extension CgroupV1LimitTests {
    @Test(
        "A dead daemon's v1 directories are swept in every hierarchy when the supervisor starts, with no ceiling asked",
        .enabled(if: CgroupV1Limits.controllers.contains { CgroupV1LimitTests.own($0) != nil }, "needs cgroup v1")
    )
    func P5_aDeadDaemonsDirectoriesAreSweptAtStart() async throws {
        // A pid that is gone: a child that has exited and been waited for.
        let done = Process()
        done.executableURL = URL(fileURLWithPath: "/bin/true")
        try done.run()
        done.waitUntilExit()
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["30"]
        try sleeper.run()
        var stale: [String] = []
        for own in Set(CgroupV1Limits.controllers.compactMap(Self.own)) {
            let directory = "\(own == "/" ? "" : own)/runway.\(done.processIdentifier)"
            try #require(mkdir(directory, 0o755) == 0 && mkdir("\(directory)/com.test.stale", 0o755) == 0)
            let procs = "\(directory)/com.test.stale/cgroup.procs"
            #expect(SystemFiles.write("\(sleeper.processIdentifier)", to: procs) == 0, "\(procs)")
            stale.append(directory)
        }

        let scheduler = try Self.scheduler(.signal)
        _ = scheduler.endProcessesLeftByPreviousRun()
        for directory in stale { #expect(access(directory, F_OK) != 0, "\(directory) is removed") }
        sleeper.waitUntilExit()
        #expect(sleeper.terminationReason == .uncaughtSignal && sleeper.terminationStatus == SIGKILL)
        await scheduler.shutdown()
    }
}

/// `CgroupV1Limits.locate`: the daemon's directory in a v1 hierarchy, from the texts of `/proc/self/mountinfo` and
/// `/proc/self/cgroup` as systemd hosts and containers write them.
@Suite struct CgroupV1LocateTests {
    static let mountinfo = """
        25 20 0:22 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755
        30 25 0:26 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:12 - cgroup cgroup rw,cpu,cpuacct
        31 25 0:27 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:13 - cgroup cgroup rw,pids
        32 25 0:28 /kubepods/pod1 /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory
        33 25 0:29 / /sys/fs/cgroup/blkio ro,nosuid - cgroup cgroup rw,blkio
        34 25 0:30 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw
        """
    static let membership = """
        6:blkio:/system.slice/runway.service
        5:memory:/kubepods/pod1/runway
        4:pids:/system.slice/runway.service
        3:cpu,cpuacct:/system.slice/runway.service
        0::/system.slice/runway.service
        """

    @Test func theDaemonsDirectoryInEachV1HierarchyIsFoundByItsController() {
        func locate(_ controller: String) -> String? {
            CgroupV1Limits.locate(controller, mountinfo: Self.mountinfo, membership: Self.membership)
        }
        // A co-mounted controller (cpu,cpuacct) in both files.
        #expect(locate("cpu") == "/sys/fs/cgroup/cpu,cpuacct/system.slice/runway.service")
        #expect(locate("pids") == "/sys/fs/cgroup/pids/system.slice/runway.service")
        // A container's mount whose root is its own cgroup: the path is taken relative to it.
        #expect(locate("memory") == "/sys/fs/cgroup/memory/runway")
        // Read-only (blkio here), or no v1 hierarchy at all (the v2 line 0:: does not count).
        #expect(locate("blkio") == nil)
        #expect(locate("hugetlb") == nil)
        #expect(CgroupV1Limits.locate("pids", mountinfo: "", membership: "") == nil)
    }
}
