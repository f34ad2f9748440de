import Foundation
import RunwayCore
import Testing

@testable import Runway
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// Review r16: attacks on Decisions 183-188 (the process path, second pass), with real child processes.
@Suite("Process apps: review r16 of the process path's second pass", .serialized)
struct ReviewR16Tests {
    /// Signal-mode options whose light scan never runs during a test: only the confirmation looks attribute
    /// re-parented processes.
    static func optionsWithoutLightScan() -> ProcessOptions {
        var options = ProcessTestSupport.options(.signal)
        options.descendantScanInterval = .seconds(3600)
        return options
    }

    @Test(
        "P1 (Decision 184): an escapee attributed to a suspended app by another app's look is stopped too"
    )
    func P1_escapeeAttributedByAnotherAppsLookIsStopped() async throws {
        let files = [HostileProcessTests.temporaryFile(), HostileProcessTests.temporaryFile()]
        defer { for file in files { unlink(file) } }
        let scheduler = try RunwayScheduler(settings: shortSettings, processOptions: Self.optionsWithoutLightScan())
        let apps: [AppID] = ["com.test.r16.escaper.a", "com.test.r16.escaper.b"]
        for (app, file) in zip(apps, files) {
            try scheduler.register(process: HostileProcessTests.escaper(app, pidFile: file))
        }
        #expect(scheduler.perform(.launch, onEach: apps).isEmpty)
        var escapees: [Int32] = []
        for (app, file) in zip(apps, files) {
            let main = try #require(scheduler.processes()[app]?.pid)
            let escapee = try #require(await HostileProcessTests.pids(in: file).first)
            #expect(await eventually { HostileProcessTests.hasEscaped(escapee, from: main) })
            escapees.append(escapee)
        }
        defer { for escapee in escapees { kill(escapee, SIGKILL) } }
        // Both escapees are re-parented here and no scan has seen them. Home for both in one loop turn: the first
        // confirmation look that reads this process's children attributes both escapees, each to its app.
        _ = scheduler.bridge.sync { driver in
            for app in apps { try? driver.userAction(.home, for: app) }
        }
        let confirmed = await eventually(timeout: .seconds(5)) {
            apps.allSatisfy { scheduler.processes()[$0]?.suspensionConfirmed == true }
        }
        let states = escapees.map { ProcessTestSupport.processState($0) }
        #expect(confirmed, "suspensions confirmed: \(apps.map { scheduler.processes()[$0]?.suspensionConfirmed })")
        #expect(states.allSatisfy { $0 == "T" }, "escapees \(escapees) show \(states) with their apps suspended")
        await scheduler.shutdown()
    }

    @Test(
        "P1/P2 (Decision 188): a cgroup frozen by someone else is thawed at the app's exit; its next run starts",
        .enabled(if: ProcessTestSupport.freezerAvailable)
    )
    func P2_externallyFrozenCgroupIsThawedAtExit() async throws {
        let started = HostileProcessTests.temporaryFile()
        defer { unlink(started) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.freezer)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.r16.frozen.elsewhere"
        try scheduler.register(
            process: ProcessTestSupport.shell(app, "echo run >> \(started); exec /bin/sleep 1000")
        )
        try scheduler.perform(.launch, on: app)
        #expect(await eventually { ((try? String(contentsOfFile: started, encoding: .utf8)) ?? "") == "run\n" })
        let path = try #require(scheduler.processes()[app]?.cgroupPath)
        // An operator (root) freezes the app's cgroup; Runway never asked for a suspension. SIGTERM then ends the
        // frozen sleep (a fatal signal reaches a frozen task), leaving the cgroup empty: nothing is killed through
        // cgroup.kill, so the cgroup is not re-created for the next run.
        #expect(SystemFiles.write("1", to: "\(path)/cgroup.freeze") == 0)
        #expect(await eventually { ProcessTestSupport.cgroupEvents(path).contains("frozen 1") })

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
        "P1 (Decision 188): Runway's cgroup directory removed and re-created between runs: the next run is frozen",
        .enabled(if: ProcessTestSupport.freezerAvailable)
    )
    func P1_recreatedCgroupDirectoryStillFreezes() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.freezer)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.r16.recreated"
        try scheduler.register(
            process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
        )
        try scheduler.perform(.launch, on: app)
        let path = try #require(scheduler.processes()[app]?.cgroupPath)
        let parent = (path as NSString).deletingLastPathComponent
        try scheduler.perform(.terminate, on: app)
        #expect(await watcher.first { $0.app == app && $0.to == .notRunning } != nil)
        #expect(await eventually { ProcessTestSupport.cgroupEvents(path).contains("populated 0") })
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

    // MARK: Attacks that held (these pass on the reviewed code)

    @Test(
        "P1 (Decision 184): a setsid'd escapee no scan has seen at Home is stopped before the suspension is confirmed",
        arguments: [false, true]
    )
    func P1_unseenEscapeeIsStoppedBeforeConfirmation(reparented: Bool) async throws {
        let file = HostileProcessTests.temporaryFile()
        defer { unlink(file) }
        let scheduler = try RunwayScheduler(settings: shortSettings, processOptions: Self.optionsWithoutLightScan())
        let app: AppID = "com.test.r16.unseen"
        // Re-parented here (double fork), or still the main process's child (setsid only).
        let descriptor =
            reparented
            ? HostileProcessTests.escaper(app, pidFile: file)
            : ProcessTestSupport.shell(
                app,
                "trap 'exit 0' TERM; setsid sh -c 'echo $$ >> \(file); exec sleep 1000' & "
                    + ProcessTestSupport.idleLoop
            )
        try scheduler.register(process: descriptor)
        try scheduler.perform(.launch, on: app)
        let main = try #require(scheduler.processes()[app]?.pid)
        let escapee = try #require(await HostileProcessTests.pids(in: file).first)
        defer { kill(escapee, SIGKILL) }
        #expect(await eventually { (ProcFS.stat(escapee)?.session ?? main) != main })
        try scheduler.perform(.home, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        #expect(ProcessTestSupport.processState(escapee) == "T", "confirmed while the escapee runs")
        try scheduler.perform(.summon, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        #expect(await eventually { ProcessTestSupport.processState(escapee) != "T" }, "the escapee stayed stopped")
        await scheduler.shutdown()
    }

    @Test(
        "Decision 183: an execve that fails with EACCES (a script whose interpreter is a directory) is spawnFailed",
        arguments: DirectSpawnTests.mechanisms
    )
    func execveEACCESIsReported(mechanism: SuspensionMechanism) async throws {
        let script = DirectSpawnTests.temporaryPath()
        defer { unlink(script) }
        try "#!/tmp\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.r16.eacces"
        try scheduler.register(process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: [script]))))
        try scheduler.perform(.launch, on: app)
        let gone = await watcher.first { $0.app == app && $0.to == .notRunning }
        guard case .terminated(.spawnFailed(let message)) = gone?.cause else {
            Issue.record("expected spawnFailed, got \(String(describing: gone))")
            await scheduler.shutdown()
            return
        }
        #expect(message.contains("execve failed: Permission denied"), "\(message)")
        await scheduler.shutdown()
    }
}
