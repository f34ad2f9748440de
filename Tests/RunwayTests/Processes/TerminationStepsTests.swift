import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// What a termination reaches, with real children: SIGTERM reaches every process of the app (L4), in signal mode
/// after a scan and in freezer mode in two steps (the main process's group at once, the cgroup's other processes on
/// the next loop turn); what an app leaves ends with it (P2); an app cgroup's subdirectories are counted from its link
/// count.
@Suite("Process apps: the steps of a termination (L4, P2)", .serialized)
struct TerminationStepsTests {
    static let mechanisms: [SuspensionMechanism] = [.signal, .freezer]

    /// `/bin/sh -c script` registered as `app` in `mechanism` (no light scan: only the terminate's own reads find the
    /// escapee) and launched; returns the scheduler, the main pid, and the pid the script's escapee wrote to `pidFile`,
    /// once that process runs in a session of its own under the main process.
    static func launchedWithEscapee(
        _ app: AppID,
        _ mechanism: SuspensionMechanism,
        script: String,
        pidFile: String
    ) async throws -> (scheduler: RunwayScheduler, main: Int32, escapee: Int32) {
        var options = EscapeeSuspensionTests.optionsWithoutLightScan()
        options.suspensionMechanism = mechanism
        let scheduler = try RunwayScheduler(settings: shortSettings, processOptions: options)
        try scheduler.register(
            process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sh", "-c", script])))
        )
        try scheduler.perform(.launch, on: app)
        let main = try #require(scheduler.processes()[app]?.pid)
        let pid = try #require(await Escapees.pids(in: pidFile).first)
        #expect(await eventually { ProcFS.stat(pid).map { $0.session == pid && $0.parent == main } == true })
        return (scheduler, main, pid)
    }

    @Test(
        "L4: a process that left the app's group and no scan has seen gets SIGTERM while the main process runs on",
        arguments: mechanisms
    )
    func L4_restOfTheAppGetsSIGTERM(mechanism: SuspensionMechanism) async throws {
        let pidFile = TemporaryPaths.file()
        let termFile = TemporaryPaths.file()
        defer { for file in [pidFile, termFile] { unlink(file) } }
        let app: AppID = "com.test.termination.rest"
        // The main process survives SIGTERM (a trap that does nothing); its child, in a session of its own, writes
        // `term` when SIGTERM reaches it. Only SIGTERM writes it: at the grace's end SIGKILL would end it silently.
        // (`\$\$` is the child's pid: the main shell leaves it to the child's.)
        let escapee =
            "trap 'echo term > \(termFile); exit 0' TERM; echo \\$\\$ > \(pidFile); while :; do sleep 0.05; done"
        let script = "trap ':' TERM; setsid sh -c \"\(escapee)\" & while :; do sleep 0.05; done"
        let (scheduler, _, pid) = try await Self.launchedWithEscapee(app, mechanism, script: script, pidFile: pidFile)
        func restLooks() -> Int {
            scheduler.bridge.sync { $0.processSupervisor().scanCounts.terminationRestLooks } ?? -1
        }
        let before = restLooks()

        try scheduler.perform(.terminate, on: app)
        let termed = await eventually(timeout: .seconds(3)) {
            (try? String(contentsOfFile: termFile, encoding: .utf8))?.hasPrefix("term") == true
        }
        #expect(termed, "\(mechanism): the escapee got SIGTERM, not only the grace's SIGKILL")
        // Signal mode scans before the SIGTERM, which then reaches the escapee with the group's; the freezer looks at
        // the rest of its cgroup on the next turn, the main process having survived SIGTERM.
        #expect(restLooks() == before + (mechanism == .freezer ? 1 : 0))
        #expect(await eventually { scheduler.status().allSatisfy { $0.state == .notRunning } })
        #expect(await eventually(timeout: .seconds(3)) { ProcessTestSupport.isGone(pid) })
        await scheduler.shutdown()
    }

    @Test(
        "P2: a process outside the group, with no RUNWAY_APP and never scanned, ends with an app that dies at SIGTERM",
        arguments: mechanisms
    )
    func P2_scrubbedEscapeeEndsWithItsApp(mechanism: SuspensionMechanism) async throws {
        let pidFile = TemporaryPaths.file()
        defer { unlink(pidFile) }
        let app: AppID = "com.test.termination.scrubbed"
        // The main process dies of SIGTERM (the shell's default). Its child left the group and the session and
        // scrubbed its environment: once the main process is gone it is re-parented here with nothing naming its app.
        let escapee = "echo \\$\\$ > \(pidFile); while :; do sleep 0.05; done"
        let script = "setsid env -i /bin/sh -c \"\(escapee)\" & wait"
        let (scheduler, _, pid) = try await Self.launchedWithEscapee(app, mechanism, script: script, pidFile: pidFile)
        defer { kill(pid, SIGKILL) }

        // The terminate and a look at what the app tracks in one loop turn, before any exit can be handled.
        let tracked = scheduler.bridge.sync { driver -> Set<Int32> in
            try? driver.command(.terminate, for: app)
            return Set(driver.processSupervisor().apps[app]?.tracked.map(\.pid) ?? [])
        }
        if mechanism == .signal {
            #expect(tracked?.contains(pid) == true, "the scan before the SIGTERM found the escapee: \(tracked ?? [])")
        }
        #expect(await eventually { scheduler.status().allSatisfy { $0.state == .notRunning } })
        #expect(await eventually(timeout: .seconds(3)) { ProcessTestSupport.isGone(pid) }, "\(mechanism): escaped")
        await scheduler.shutdown()
    }

    @Test("P2: whether an app's cgroup has cgroups below it is read from its link count")
    func P2_cgroupDescendantsFromLinkCount() async throws {
        let (scheduler, apps) = try LaunchedApps.launched(1, .freezer)
        let path = try #require(scheduler.processes()[apps[0]]?.cgroupPath)
        let cgroup = AppCgroup(path: path)
        #expect(cgroup.hasDescendants == false)
        #expect(mkdir("\(path)/worker", 0o755) == 0)
        #expect(cgroup.hasDescendants == true)
        #expect(rmdir("\(path)/worker") == 0)
        #expect(cgroup.hasDescendants == false)
        #expect(AppCgroup(path: "\(path)/missing").hasDescendants == nil)
        await scheduler.shutdown()
    }
}
