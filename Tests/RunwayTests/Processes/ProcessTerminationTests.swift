import CLibUV
import CRunwayProcess
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// L4, L6, P2, P4 with real children.
@Suite("Process apps: termination and exits (L4, L6, P2, P4)", .serialized)
struct ProcessTerminationTests {
    @Test("P2: a child that ignores SIGTERM is killed at TerminationGrace after SIGTERM, within grace + 1 s")
    func P2_childIgnoringSIGTERMIsKilled() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.stubborn"
        try scheduler.register(process: ProcessTestSupport.shell(app, "trap '' TERM; while :; do sleep 0.05; done"))
        try scheduler.perform(.launch, on: app)
        let pid = try #require(scheduler.processes()[app]?.pid)
        #expect(await watcher.first { $0.app == app && $0.to == .active } != nil)
        // A plain process is active as soon as it is spawned: wait until the shell has run its `trap`, or SIGTERM
        // can arrive first and end it (seen in full serial runs).
        #expect(await eventually { ProcessTestSupport.ignoresSIGTERM(pid) })
        try scheduler.perform(.terminate, on: app)
        let gone = try #require(await watcher.first { $0.app == app && $0.to == .notRunning })
        #expect(gone.cause == .terminated(.requested))
        #expect(gone.exit == .signaled(SIGKILL))
        // A plain process gets no messages, so SIGTERM went out when terminate was accepted.
        let accepted = try #require(watcher.events.last { $0.app == app && $0.to == .active })
        #expect(gone.at - accepted.at >= shortSettings.terminationGrace)
        #expect(gone.at - accepted.at < shortSettings.terminationGrace + .seconds(1))
        #expect(await eventually { ProcessTestSupport.isGone(pid) })
        await scheduler.shutdown()
    }

    @Test("L6: a child that crashes or exits on its own goes to notRunning with its status; others are undisturbed")
    func L6_crashAndExitAreRecorded() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let watcher = TransitionWatcher(scheduler)
        try scheduler.register(process: ProcessTestSupport.shell("com.test.crash", "sleep 0.1; kill -SEGV $$"))
        try scheduler.register(process: ProcessTestSupport.shell("com.test.exit3", "sleep 0.1; exit 3"))
        try scheduler.register(process: ProcessTestSupport.shell("com.test.bystander", ProcessTestSupport.idleLoop))
        for app: AppID in ["com.test.crash", "com.test.exit3", "com.test.bystander"] {
            try scheduler.perform(.launch, on: app)
        }
        let crash = await watcher.first { $0.app == "com.test.crash" && $0.to == .notRunning }
        #expect(crash?.cause == .terminated(.signaled(SIGSEGV)))
        let exit = await watcher.first { $0.app == "com.test.exit3" && $0.to == .notRunning }
        #expect(exit?.cause == .terminated(.exited(3)))
        #expect(scheduler.status().first { $0.app == "com.test.bystander" }?.state == .active)
        #expect(scheduler.processes()["com.test.crash"]?.lastExit == .signaled(SIGSEGV))
        await scheduler.shutdown()
    }

    @Test("spawn failure: a missing program gives notRunning with spawnFailed naming it")
    func spawnFailureNamesTheProgram() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.missing"
        try scheduler.register(
            process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/nonexistent/tool"])))
        )
        try scheduler.perform(.launch, on: app)
        let gone = await watcher.first { $0.app == app && $0.to == .notRunning }
        guard case .terminated(.spawnFailed(let message)) = gone?.cause else {
            Issue.record("expected spawnFailed, got \(String(describing: gone))")
            return
        }
        #expect(message.contains("/nonexistent/tool"))
        await scheduler.shutdown()
    }

    @Test("A child spawned from a SCHED_FIFO loop thread runs at the normal policy (SCHED_RESET_ON_FORK)")
    func childOfARealtimeLoopIsNotRealtime() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal),
            loopPriority: .realtime(priority: 5)
        )
        if case .refused = scheduler.loopPriorityOutcome {
            print("no SCHED_FIFO for the loop here (\(scheduler.loopPriorityOutcome)); the child is checked anyway")
        }
        let app: AppID = "com.test.fifo.child"
        try scheduler.register(process: ProcessTestSupport.shell(app, "sleep 1000 & " + ProcessTestSupport.idleLoop))
        try scheduler.perform(.launch, on: app)
        let pid = try #require(scheduler.processes()[app]?.pid)
        var family: [Int32] = []
        #expect(
            await eventually {
                family = ProcFS.members(ofProcessGroup: pid)
                return family.count >= 2
            }
        )
        for member in family {
            #expect(
                runway_thread_policy(member) == 0,
                "pid \(member) of the app runs at policy \(runway_thread_policy(member))"
            )
        }
        await scheduler.shutdown()
    }

    @Test("P4: shutdown terminates every child in parallel and returns when all are gone, leaving no orphan")
    func P4_shutdownTerminatesEveryChild() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings, processOptions: ProcessTestSupport.options(.auto))
        let apps: [AppID] = (0..<5).map { AppID("com.test.p4.\($0)") }
        for app in apps {
            try scheduler.register(
                process: ProcessTestSupport.shell(app, "sleep 1000 & " + ProcessTestSupport.idleLoop)
            )
            try scheduler.perform(.launch, on: app)
        }
        try scheduler.perform(.home, on: apps[0])
        let pids = apps.compactMap { scheduler.processes()[$0]?.pid }
        #expect(pids.count == apps.count)
        var everyone: [Int32] = []
        #expect(
            await eventually {
                everyone = pids.flatMap { ProcFS.members(ofProcessGroup: $0) }
                return everyone.count >= 2 * pids.count
            }
        )
        await scheduler.shutdown()
        #expect(scheduler.status().isEmpty)
        #expect(await eventually { everyone.allSatisfy(ProcessTestSupport.isGone) })
    }
}
