import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// P1 containment with real processes, a real cgroup and a root test process: an app that runs as a user of its
/// own (`nobody`) in freezer mode cannot leave its cgroup, thaw it or create cgroups below it, sees only its own
/// cgroup, and has only the ids it was given; an app of the daemon's own user is reported not contained and may
/// create only a bounded number of cgroups, all removed with its own.
@Suite("Process apps: contained apps", .serialized)
struct ContainedAppTests {
    static let nobody = AppUser(name: "nobody", uid: 65_534, gid: 65_534)

    static var runnable: Bool { geteuid() == 0 && ProcessTestSupport.freezerAvailable }

    /// A process app running `script` under `/bin/sh` as `user`.
    static func app(_ id: AppID, user: AppUser?, _ script: String) -> AppDescriptor {
        var spec = ProcessSpec(arguments: ["/bin/sh", "-c", script])
        spec.user = user
        return AppDescriptor(id: id, kind: .process(spec))
    }

    /// A directory anyone may write to, for the app's reports; removed by the caller.
    static func sharedDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("runway-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        chmod(path, 0o777)
        return path
    }

    /// The cgroup a scheduler in this process gives `app` (Runway's `runway.<pid>` directory, then the app).
    static func cgroupPath(of app: AppID) throws -> String {
        let hierarchy = try CgroupHierarchy.discover().get()
        return "\(hierarchy.ownDirectory)/runway.\(getpid())/\(app.bundleIdentifier)"
    }

    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test("P6: an app with UserName runs with only its uid, gid and groups, in a cgroup namespace of its own")
    func P6_appRunsAsItsUserInItsOwnCgroupNamespace() async throws {
        guard Self.runnable else { return }
        let directory = try Self.sharedDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let report = "\(directory)/identity"
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.freezer)
        )
        let plain: AppID = "com.test.contained.identity"
        let grouped: AppID = "com.test.contained.groups"
        let script = { (name: String) in
            "{ id -u; id -g; id -G; grep '^0::' /proc/self/cgroup; } > \(directory)/\(name).tmp && "
                + "mv \(directory)/\(name).tmp \(directory)/\(name); " + ProcessTestSupport.idleLoop
        }
        var withGroups = Self.nobody
        withGroups.groups = [65_534, 100]
        try scheduler.register(process: Self.app(plain, user: Self.nobody, script("identity")))
        try scheduler.register(process: Self.app(grouped, user: withGroups, script("groups")))
        try scheduler.perform(.launch, on: plain)
        try scheduler.perform(.launch, on: grouped)
        #expect(await eventually { Self.lines(report).count == 4 && Self.lines("\(directory)/groups").count == 4 })
        #expect(Self.lines(report) == ["65534", "65534", "65534", "0::/"], "\(Self.lines(report))")
        #expect(Self.lines("\(directory)/groups") == ["65534", "65534", "65534 100", "0::/"])
        #expect(scheduler.processes()[plain]?.containment == .contained)
        await scheduler.shutdown()
    }

    @Test("P6: a protocol app with UserName talks over its channel, in its working directory, its output logged")
    func P6_protocolAppWithUserNameKeepsItsChannelDirectoryAndOutput() async throws {
        guard Self.runnable else { return }
        let directory = try Self.sharedDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = Recorder<String>()
        let scheduler = try RunwayScheduler(
            settings: ProtocolApps.settings,
            processOptions: ProcessTestSupport.options(.freezer),
            logger: .recording(log)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.contained.protocol"
        var descriptor = ProcessTestSupport.sample(app, environment: ["SAMPLE_TASK_SECONDS": "0.1"])
        guard case .process(var spec) = descriptor.kind else { return }
        spec.user = Self.nobody
        spec.workingDirectory = directory
        descriptor.kind = .process(spec)
        try scheduler.register(process: descriptor)
        try scheduler.perform(.launch, on: app)
        #expect(await ProtocolApps.printed(log, app, "received didBecomeActive"))
        try scheduler.perform(.home, on: app)
        let suspended = await watcher.first { $0.app == app && $0.to == .suspended }
        #expect(suspended?.cause == .noOutstandingTasks)
        let pid = try #require(scheduler.processes()[app]?.pid)
        let cwd = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")
        #expect(cwd == directory)
        #expect(ProcFS.stat(pid) != nil)
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        #expect(status.contains("Uid:\t65534\t65534\t65534\t65534"), "\(status)")
        await scheduler.shutdown()
    }

    @Test("P6: an app with UserName cannot leave its cgroup, thaw it or make cgroups; suspended, nothing runs")
    func P6_containedAppCannotLeaveOrThawItsCgroup() async throws {
        guard Self.runnable else { return }
        let directory = try Self.sharedDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let app: AppID = "com.test.contained.attacker"
        let cgroup = try Self.cgroupPath(of: app)
        let parent = (cgroup as NSString).deletingLastPathComponent
        let root = try CgroupHierarchy.discover().get().ownDirectory
        let results = "\(directory)/results"
        let counter = "\(directory)/counter"
        // Each attack appends what succeeded; a grandchild counts while it runs.
        let script = """
            ( echo $$ > \(parent)/cgroup.procs ) 2>/dev/null && echo left-to-parent >> \(results); \
            ( echo $$ > \(root)/cgroup.procs ) 2>/dev/null && echo left-to-root >> \(results); \
            ( echo 0 > \(cgroup)/cgroup.freeze ) 2>/dev/null && echo thawed >> \(results); \
            mkdir \(cgroup)/escape 2>/dev/null && echo made-cgroup >> \(results); \
            sh -c 'i=0; while :; do i=$((i+1)); echo $i > \(counter); sleep 0.01; done' & \
            echo done >> \(results);
            """ + " " + ProcessTestSupport.idleLoop
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.freezer)
        )
        try scheduler.register(process: Self.app(app, user: Self.nobody, script))
        try scheduler.perform(.launch, on: app)
        #expect(await eventually { Self.lines(results).contains("done") })
        #expect(Self.lines(results) == ["done"], "attacks that succeeded: \(Self.lines(results))")
        let pid = try #require(scheduler.processes()[app]?.pid)
        #expect(SystemFiles.read("\(cgroup)/cgroup.procs")?.split(separator: "\n").contains("\(pid)") == true)

        try scheduler.perform(.home, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        let before = Self.lines(counter)
        // A process of the app's user outside the app (as a helper the app started would be, had it escaped):
        // it cannot thaw the cgroup either.
        let helper = try ChildProgram.spawn(
            "/usr/sbin/runuser",
            ["-u", "nobody", "--", "/bin/sh", "-c", "echo 0 > \(cgroup)/cgroup.freeze 2>/dev/null"]
        )
        let status = await ChildProgram.exitStatus(helper)
        #expect(status != 0, "a process of the app's user thawed its cgroup")
        try await Task.sleep(for: .milliseconds(300))
        #expect(Self.lines(counter) == before, "the grandchild counted while its app was suspended")
        #expect(ProcessTestSupport.cgroupEvents(cgroup).contains("frozen 1"))
        await scheduler.shutdown()
    }

    @Test("P6: an app of the daemon's user is not contained, makes a bounded number of cgroups, all removed")
    func P6_sameUserAppIsNotContainedAndItsCgroupsAreBoundedAndRemoved() async throws {
        guard Self.runnable else { return }
        let directory = try Self.sharedDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let app: AppID = "com.test.contained.sameuser"
        let cgroup = try Self.cgroupPath(of: app)
        let results = "\(directory)/results"
        let script = """
            n=0; for i in $(seq 1 40); do mkdir \(cgroup)/s$i 2>/dev/null || break; n=$i; done; \
            echo $n >> \(results); \
            mkdir -p \(cgroup)/s1/a/b 2>/dev/null && echo deep >> \(results); \
            echo done >> \(results);
            """ + " " + ProcessTestSupport.idleLoop
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.freezer)
        )
        try scheduler.register(process: Self.app(app, user: nil, script))
        try scheduler.perform(.launch, on: app)
        #expect(await eventually { Self.lines(results).contains("done") })
        #expect(Self.lines(results) == ["\(AppCgroup.descendantLimit)", "done"], "\(Self.lines(results))")
        guard case .notContained(let reason) = scheduler.processes()[app]?.containment else {
            Issue.record("an app of the daemon's user reported contained")
            await scheduler.shutdown()
            return
        }
        #expect(reason.contains("daemon's user"), "\(reason)")
        await scheduler.shutdown()
        #expect(access(cgroup, F_OK) != 0, "the app's cgroup (or one below it) was left: \(cgroup)")
    }

    @Test("P6: an app cgroup made again after cgroup.kill keeps its bound on sub-cgroups")
    func P6_recreatedCgroupKeepsItsBound() throws {
        guard Self.runnable else { return }
        let parent = try CgroupHierarchy.discover().get().makeRunwayDirectory().get()
        let cgroup = try AppCgroup.create(in: parent, name: "com.test.contained.recreated").get()
        defer {
            _ = cgroup.removeTree()
            _ = rmdir(parent)  // fails, harmlessly, while another scheduler of this process uses it.
        }
        #expect(SystemFiles.read("\(cgroup.path)/cgroup.max.descendants") == "\(AppCgroup.descendantLimit)\n")
        cgroup.killAll()
        #expect(KilledCgroups.prepareForClone(cgroup.path))
        #expect(SystemFiles.read("\(cgroup.path)/cgroup.max.descendants") == "\(AppCgroup.descendantLimit)\n")
        #expect(SystemFiles.read("\(cgroup.path)/cgroup.max.depth") == "\(AppCgroup.depthLimit)\n")
    }

    @Test(
        "P1: a user switch the kernel refuses reaches spawnFailed naming the call, and leaves no child",
        arguments: ProcessTestSupport.mechanisms
    )
    func P6_refusedUserSwitchIsASpawnFailure(mechanism: SuspensionMechanism) async throws {
        guard geteuid() == 0 else { return }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.contained.toomanygroups"
        var user = Self.nobody
        // More supplementary groups than Linux takes (NGROUPS_MAX, 65,536): setgroups fails with EINVAL.
        user.groups = (0..<70_000).map { UInt32($0) }
        try scheduler.register(process: Self.app(app, user: user, "exit 0"))
        try scheduler.perform(.launch, on: app)
        let gone = await watcher.first { $0.app == app && $0.to == .notRunning }
        guard case .terminated(.spawnFailed(let message)) = gone?.cause else {
            Issue.record("expected spawnFailed, got \(String(describing: gone))")
            await scheduler.shutdown()
            return
        }
        #expect(message.contains("setgroups failed: Invalid argument"), "\(message)")
        let zombies = ProcessTree().children(of: getpid()).filter { ProcFS.stat($0)?.state == "Z" }
        #expect(zombies.isEmpty, "zombies: \(zombies)")
        await scheduler.shutdown()
    }

    @Test("P6: only a root daemon switches users; any other refuses another user, naming UserName")
    func P6_onlyARootDaemonStartsAnAppAsAnotherUser() throws {
        #expect(try ProcessSupervisor.launchCredentials(Self.nobody, daemonUID: 0, daemonGID: 0).get() == Self.nobody)
        #expect(try ProcessSupervisor.launchCredentials(nil, daemonUID: 1_000, daemonGID: 1_000).get() == nil)
        let own = AppUser(name: "me", uid: 1_000, gid: 1_000)
        #expect(try ProcessSupervisor.launchCredentials(own, daemonUID: 1_000, daemonGID: 1_000).get() == nil)
        for user in [Self.nobody, AppUser(name: "me", uid: 1_000, gid: 0)] {
            guard
                case .failure(let refusal) = ProcessSupervisor.launchCredentials(
                    user,
                    daemonUID: 1_000,
                    daemonGID: 1_000
                )
            else {
                Issue.record("a daemon of uid 1000 accepted \(user)")
                continue
            }
            #expect(refusal.description.contains("UserName \(user.name)"), "\(refusal)")
        }
    }

    @Test("P6: a dead daemon's cgroups, with cgroups its apps made and a process in one, are removed at start")
    func P6_deadDaemonsCgroupTreeIsSweptAtStart() async throws {
        guard Self.runnable else { return }
        let hierarchy = try CgroupHierarchy.discover().get()
        // A pid that is gone: a child that has exited and been reaped.
        let dead = try ChildProgram.spawn("/bin/true", [])
        _ = await ChildProgram.exitStatus(dead)
        let stale = "\(hierarchy.ownDirectory)/runway.\(dead)"
        let deepest = "\(stale)/com.test.stale/worker/inner"
        try FileManager.default.createDirectory(atPath: deepest, withIntermediateDirectories: true)
        let sleeper = try ChildProgram.spawn("/bin/sleep", ["1000"])
        #expect(SystemFiles.write("\(sleeper)", to: "\(deepest)/cgroup.procs") == 0)

        hierarchy.removeStaleDirectories()
        let ended = await ChildProgram.exitStatus(sleeper, timeout: .seconds(3))
        #expect(ended != nil, "a dead daemon's app kept running")
        if ended == nil {
            kill(sleeper, SIGKILL)
            _ = await ChildProgram.exitStatus(sleeper)
        }
        #expect(access(stale, F_OK) != 0, "a dead daemon's cgroup tree was left")
        if access(stale, F_OK) == 0 { _ = AppCgroup(path: stale).removeTree() }
    }
}
