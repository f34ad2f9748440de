import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// Per-app resource limits on real children (Docs/Configuration.md, "Resource limits"): the setrlimit values of
/// `SoftResourceLimits` / `HardResourceLimits` are in place when the program runs (its own /proc/self/limits says
/// so), a value that cannot be applied fails the launch like an exec failure, and a cgroup ceiling that cannot be
/// enforced refuses the launch naming the key.
@Suite("Process apps: resource limits on real children", .serialized)
struct ResourceLimitTests {
    static let mechanisms: [SuspensionMechanism] =
        ProcessTestSupport.freezerAvailable ? [.signal, .freezer] : [.signal]

    /// `Max open files  512  1024  files` → ("512", "1024"), by the row's name.
    static func limitRow(_ text: String, _ name: String) -> (soft: String, hard: String)? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return nil }
        let fields = line.dropFirst(name.count).split(separator: " ")
        guard fields.count >= 2 else { return nil }
        return (String(fields[0]), String(fields[1]))
    }

    /// Launches `/bin/cp /proc/self/limits OUT` with `limits` and returns what the program saw.
    static func limitsSeen(_ limits: ProcessLimits, mechanism: SuspensionMechanism) async throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("runway-limits-\(UUID())").path
        defer { unlink(output) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.limits.seen"
        var spec = ProcessSpec(arguments: ["/bin/cp", "/proc/self/limits", output])
        spec.limits = limits
        try scheduler.register(process: AppDescriptor(id: app, kind: .process(spec)))
        try scheduler.perform(.launch, on: app)
        let gone = await watcher.first { $0.app == app && $0.to == .notRunning }
        #expect(gone?.cause == .terminated(.exited(0)), "\(String(describing: gone))")
        await scheduler.shutdown()
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    /// The launch's `spawnFailed` message, or nil (with an issue) when it did not fail so.
    static func launchFailure(_ spec: ProcessSpec, mechanism: SuspensionMechanism) async throws -> String? {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.limits.refused"
        try scheduler.register(process: AppDescriptor(id: app, kind: .process(spec)))
        try scheduler.perform(.launch, on: app)
        let gone = await watcher.first { $0.app == app && $0.to == .notRunning }
        await scheduler.shutdown()
        guard case .terminated(.spawnFailed(let message)) = gone?.cause else {
            Issue.record("expected spawnFailed, got \(String(describing: gone))")
            return nil
        }
        return message
    }

    @Test(
        "SoftResourceLimits / HardResourceLimits are in place when the program runs; a value not given is inherited",
        arguments: mechanisms
    )
    func P5_setrlimitValuesReachTheProgram(mechanism: SuspensionMechanism) async throws {
        var inherited = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_STACK.rawValue), &inherited)
        let limits = ProcessLimits(
            resources: [
                .numberOfFiles: .init(soft: 100, hard: 200),
                .core: .init(soft: 0, hard: 4096),
                .stack: .init(soft: 1 << 20),
                .numberOfProcesses: .init(soft: 77, hard: 88),
                .fileSize: .init(hard: ProcessLimits.unlimited),
            ]
        )
        let text = try await Self.limitsSeen(limits, mechanism: mechanism)
        func row(_ name: String) -> [String] { Self.limitRow(text, name).map { [$0.soft, $0.hard] } ?? [] }
        #expect(row("Max open files") == ["100", "200"], "\(text)")
        #expect(row("Max core file size") == ["0", "4096"], "\(text)")
        #expect(row("Max processes") == ["77", "88"], "\(text)")
        #expect(row("Max file size").last == "unlimited", "\(text)")
        // Only the soft stack limit was given: the hard one is the daemon's.
        let stack = try #require(Self.limitRow(text, "Max stack size"))
        #expect(stack.soft == "1048576", "\(text)")
        let inheritedHard = inherited.rlim_max == rlim_t.max ? "unlimited" : "\(inherited.rlim_max)"
        #expect(stack.hard == inheritedHard, "\(text)")
    }

    @Test("A limit the kernel refuses fails the launch like an exec failure, naming the key and errno")
    func P5_aRefusedLimitFailsTheLaunchNamingTheKey() async throws {
        // Above /proc/sys/fs/nr_open: refused (EPERM) even for root.
        let nrOpen = UInt64(SystemFiles.read("/proc/sys/fs/nr_open")!.trimmingCharacters(in: .whitespacesAndNewlines))!
        var spec = ProcessSpec(arguments: ["/bin/true"])
        spec.limits = ProcessLimits(resources: [.numberOfFiles: .init(soft: nrOpen + 1, hard: nrOpen + 1)])
        let message = try await Self.launchFailure(spec, mechanism: .signal)
        #expect(
            message?.contains(
                "setrlimit of NumberOfFiles (SoftResourceLimits \(nrOpen + 1), HardResourceLimits \(nrOpen + 1)) "
                    + "failed: Operation not permitted"
            ) == true,
            "\(message ?? "")"
        )
        // The failed child was reaped by the spawn.
        let zombies = ProcessTree().children(of: getpid()).filter { ProcFS.stat($0)?.state == "Z" }
        #expect(zombies.isEmpty, "zombies: \(zombies)")
    }

    @Test("Without cgroup v2 for the app nor a cgroup v1 hierarchy, a ceiling refuses the launch, naming the key")
    func P5_aCeilingWithNoCgroupAtAllRefusesTheLaunch() {
        // A host without cgroup v1 (empty mountinfo and membership), the app in signal mode (no cgroup v2).
        let refusal = AppCgroupLimits.apply(
            AppCgroupLimits.ceilings(ProcessLimits(memoryMaxBytes: 64 << 20)),
            app: "com.test.limits.refused",
            cgroup: nil,
            runwayDirectory: nil,
            v1: CgroupV1Limits(mountinfo: "", membership: ""),
            mechanismReason: "it runs in signal mode: SuspensionMechanism is signal"
        )
        guard case .failure(let reason) = refusal else {
            Issue.record("expected a refusal, got \(refusal)")
            return
        }
        #expect(
            reason.message
                == "MemoryMax: a cgroup v2 ceiling needs the app's own cgroup v2, which only the freezer mechanism "
                + "gives; this app has none (it runs in signal mode: SuspensionMechanism is signal); nor on cgroup "
                + "v1: no cgroup v1 hierarchy has the memory controller"
        )
    }

    @Test(
        "A ceiling whose controller is on neither cgroup v2 nor v1 refuses the launch, naming key, controller, file",
        .enabled(
            if: ProcessTestSupport.freezerAvailable && ProcessTestSupport.controllerMissing("pids"),
            "needs the freezer, and the pids controller missing from cgroup v2"
        )
    )
    func P5_aMissingControllerRefusesTheLaunch() throws {
        let runway = try CgroupHierarchy.discover().flatMap { $0.makeRunwayDirectory() }.get()
        let leaf = try AppCgroup.create(in: runway, name: "com.test.limits.nopids").get()
        defer { leaf.remove() }
        let refusal = AppCgroupLimits.apply(
            AppCgroupLimits.ceilings(ProcessLimits(tasksMax: 16)),
            app: "com.test.limits.nopids",
            cgroup: leaf,
            runwayDirectory: runway,
            v1: CgroupV1Limits(mountinfo: "", membership: ""),
            mechanismReason: ""
        )
        guard case .failure(let reason) = refusal else {
            Issue.record("expected a refusal, got \(refusal)")
            return
        }
        #expect(reason.message.hasPrefix("TasksMax: the cgroup v2 pids controller is not available: "), "\(reason)")
        #expect(reason.message.contains("/cgroup.controllers lists \""), "\(reason)")
        #expect(reason.message.hasSuffix("nor on cgroup v1: no cgroup v1 hierarchy has the pids controller"))
    }

    @Test(
        "MemoryMax, TasksMax and CPUWeight are written to the app's cgroup before the program runs in it",
        .enabled(
            if: ProcessTestSupport.freezerAvailable && !ProcessTestSupport.controllerMissing("memory")
                && !ProcessTestSupport.controllerMissing("pids") && !ProcessTestSupport.controllerMissing("cpu"),
            "needs the freezer and the memory, pids and cpu controllers on cgroup v2 for the daemon's cgroup"
        )
    )
    func P5_cgroupCeilingsAreWritten() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.freezer)
        )
        let app: AppID = "com.test.limits.cgroup"
        var spec = ProcessSpec(arguments: ["/bin/sleep", "1000"])
        spec.limits = ProcessLimits(memoryMaxBytes: 64 << 20, tasksMax: 16, cpuWeight: 50)
        try scheduler.register(process: AppDescriptor(id: app, kind: .process(spec)))
        try scheduler.perform(.launch, on: app)
        let path = try #require(scheduler.processes()[app]?.cgroupPath)
        #expect(SystemFiles.read("\(path)/memory.max")?.hasPrefix("67108864") == true)
        #expect(SystemFiles.read("\(path)/pids.max")?.hasPrefix("16") == true)
        #expect(SystemFiles.read("\(path)/cpu.weight")?.hasPrefix("50") == true)
        await scheduler.shutdown()
    }
}

/// The cgroup write path of `AppCgroupLimits` on this machine's cgroup v2: the controller is enabled in the daemon's
/// cgroup and in `runway.<pid>`, then the leaf's file is written. Shown with `hugetlb`, a controller a hybrid host
/// does put on cgroup v2 where memory, pids and cpu are on v1, through the same code the three keys use.
@Suite("Process apps: cgroup ceilings written through the controller's subtree_control", .serialized)
struct CgroupCeilingWriteTests {
    static var hugetlbOffered: Bool {
        guard ProcessTestSupport.freezerAvailable, case .success(let hierarchy) = CgroupHierarchy.discover() else {
            return false
        }
        let offered = SystemFiles.read("\(hierarchy.ownDirectory)/cgroup.controllers") ?? ""
        return offered.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("hugetlb")
    }

    @Test(
        "A ceiling enables its controller in the daemon's cgroup and runway.<pid>, then writes the app's leaf",
        .enabled(if: CgroupCeilingWriteTests.hugetlbOffered, "needs the freezer and hugetlb on cgroup v2")
    )
    func P5_aCeilingEnablesItsControllerAndWritesTheLeaf() throws {
        let hierarchy = try CgroupHierarchy.discover().get()
        let own = hierarchy.ownDirectory
        let runway = try hierarchy.makeRunwayDirectory().get()
        let ownHadIt = (SystemFiles.read("\(own)/cgroup.subtree_control") ?? "").contains("hugetlb")
        let leaf = try AppCgroup.create(in: runway, name: "com.test.limits.hugetlb").get()
        defer {
            leaf.remove()
            _ = SystemFiles.write("-hugetlb", to: "\(runway)/cgroup.subtree_control")
            if !ownHadIt { _ = SystemFiles.write("-hugetlb", to: "\(own)/cgroup.subtree_control") }
            _ = rmdir(runway)  // EBUSY while a scheduler of this process still has apps there: then it removes it
        }
        let ceiling = AppCgroupLimits.Ceiling(
            key: "HugePages",
            controller: "hugetlb",
            file: "hugetlb.2MB.max",
            value: "2097152",
            unset: "max",
            v1File: "",
            v1Value: nil
        )
        let applied = AppCgroupLimits.apply(
            [ceiling],
            app: "com.test.limits.hugetlb",
            cgroup: leaf,
            runwayDirectory: runway,
            v1: nil,
            mechanismReason: ""
        )
        #expect(applied == .success([]), "\(applied)")
        #expect(SystemFiles.read("\(runway)/cgroup.subtree_control")?.contains("hugetlb") == true)
        #expect(SystemFiles.read("\(leaf.path)/hugetlb.2MB.max") == "2097152\n")
        // The key removed: the leaf's file goes back to the kernel's default.
        var unset = ceiling
        unset.value = nil
        let reset = AppCgroupLimits.apply(
            [unset],
            app: "com.test.limits.hugetlb",
            cgroup: leaf,
            runwayDirectory: runway,
            v1: nil,
            mechanismReason: ""
        )
        #expect(reset == .success([]))
        #expect(SystemFiles.read("\(leaf.path)/hugetlb.2MB.max") == "max\n")
    }
}
