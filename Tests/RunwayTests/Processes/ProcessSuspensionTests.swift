@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// P1 with real children: suspend and resume confirmed by the kernel, with each mechanism.
@Suite("Process apps: suspension (P1)", .serialized)
struct ProcessSuspensionTests {
    static let mechanisms: [SuspensionMechanism] =
        ProcessTestSupport.freezerAvailable ? [.signal, .freezer] : [.signal]

    @Test("P1/S2/S3: Home suspends and summon resumes, each confirmed by the kernel", arguments: mechanisms)
    func P1_suspendAndResumeConfirmed(mechanism: SuspensionMechanism) async throws {
        let log = Recorder<String>()
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism),
            logger: .recording(log)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.loop"
        try scheduler.register(
            process: ProcessTestSupport.shell(app, "trap 'exit 0' TERM; echo ready; while :; do sleep 0.05; done")
        )
        try scheduler.perform(.launch, on: app)
        let pid = try #require(scheduler.processes()[app]?.pid)
        // stdout is logged line by line under the app's identifier; "ready" also says the TERM trap is set.
        #expect(await eventually { log.values.contains { $0.contains("app=\(app)") && $0.contains("line=ready") } })
        #expect(scheduler.processes()[app]?.mechanism?.rawValue == mechanism.rawValue)

        try scheduler.perform(.home, on: app)
        #expect(await watcher.first { $0.app == app && $0.to == .suspended } != nil)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        let status = try #require(scheduler.processes()[app])
        switch mechanism {
        case .freezer:
            let path = try #require(status.cgroupPath)
            #expect(ProcessTestSupport.cgroupEvents(path).contains("frozen 1"))
        default:
            #expect(ProcessTestSupport.isGroupStopped(pid))
        }
        // P3: the suspended app is the OOM killer's first choice.
        #expect(ProcFS.oomScoreAdjust(pid) == 1000)

        try scheduler.perform(.summon, on: app)
        #expect(await watcher.first { $0.app == app && $0.from == .suspended && $0.to == .active } != nil)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        if mechanism == .freezer, let path = scheduler.processes()[app]?.cgroupPath {
            #expect(ProcessTestSupport.cgroupEvents(path).contains("frozen 0"))
        } else {
            #expect(ProcessTestSupport.processState(pid) != "T")
            #expect(!ProcessTestSupport.isGroupStopped(pid))
        }
        #expect(ProcFS.oomScoreAdjust(pid) == 0)

        try scheduler.perform(.terminate, on: app)
        let gone = await watcher.first { $0.app == app && $0.to == .notRunning }
        #expect(gone?.cause == .terminated(.requested))
        #expect(gone?.exit == .exited(0))
        await scheduler.shutdown()
        #expect(ProcessTestSupport.isGone(pid))
    }

    @Test(
        "P1/P2: a grandchild is frozen with its parent and gone after termination, with no zombie",
        arguments: mechanisms
    )
    func P2_grandchildSharesTheAppsFate(mechanism: SuspensionMechanism) async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.forker"
        // The grandchild ignores SIGTERM and outlives its parent unless Runway kills it.
        let script = "(trap '' TERM; exec sleep 1000) & echo $! > /dev/null; while :; do sleep 0.05; done"
        try scheduler.register(process: ProcessTestSupport.shell(app, script))
        try scheduler.perform(.launch, on: app)
        let pid = try #require(scheduler.processes()[app]?.pid)
        var members: [Int32] = []
        #expect(
            await eventually {
                members = ProcFS.members(ofProcessGroup: pid).filter {
                    ProcFS.stat($0).map { $0.state != "Z" } ?? false
                }
                return members.count >= 2
            }
        )
        let grandchildren = members.filter { $0 != pid }
        #expect(!grandchildren.isEmpty)

        try scheduler.perform(.home, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        if mechanism == .freezer, let path = scheduler.processes()[app]?.cgroupPath {
            #expect(ProcessTestSupport.cgroupEvents(path).contains("frozen 1"))
            let inCgroup = Set(
                SystemFiles.read("\(path)/cgroup.procs")?.split(separator: "\n").compactMap { Int32($0) } ?? []
            )
            #expect(Set(grandchildren).isSubset(of: inCgroup))
        } else {
            #expect(ProcessTestSupport.isGroupStopped(pid))
            for grandchild in grandchildren { #expect(ProcessTestSupport.processState(grandchild) == "T") }
        }

        // L5: terminating a suspended app kills it at once, grandchildren included.
        try scheduler.perform(.terminate, on: app)
        let gone = await watcher.first { $0.app == app && $0.to == .notRunning }
        #expect(gone?.exit == .signaled(SIGKILL))
        #expect(await eventually { grandchildren.allSatisfy(ProcessTestSupport.isGone) })
        await scheduler.shutdown()
    }
}
