import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// A launch does not read its child's `/proc/PID/stat` in its own loop turn (the read would wait for the exec in
/// progress): the main process joins the tracked processes at once when the boot clock around the spawn gives its
/// start time (`BootClockStartTime`), else with the start time read on the next turn. What is asked of the app in
/// the launch's own turn (a suspension, a terminate, a state file) still reaches the new main process.
@Suite("Launch identity from the boot clock, or read on the next loop turn", .serialized)
struct LaunchIdentityTests {
    @Test(
        "A batch of launches tracks each main process in its turn from the boot clock, or leaves it pending to the next"
    )
    func identitiesFollowOnTheNextTurn() async throws {
        let (scheduler, apps) = try LaunchedApps.launched(0, .signal)
        let more = (0..<6).map { AppID("com.test.identity.\($0)") }
        for app in more {
            try scheduler.register(
                process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
            )
        }
        // The launches and the look in one hop: one loop turn.
        let sameTurn = scheduler.bridge.sync { driver -> (pending: Int, tracked: Int, fromClock: Int) in
            let supervisor = driver.processSupervisor()
            let before = supervisor.scanCounts.identitiesFromClock
            for app in more { try? driver.command(.launch, for: app) }
            let tracked = more.filter { !(supervisor.apps[$0]?.tracked.isEmpty ?? true) }.count
            let fromClock = supervisor.scanCounts.identitiesFromClock - before
            return (supervisor.batch.pendingIdentities.count, tracked, fromClock)
        }
        #expect(sameTurn?.tracked == sameTurn?.fromClock, "tracked in the launch's turn: those the clock gave")
        #expect(sameTurn.map { $0.pending + $0.tracked } == more.count)
        let deadline = ContinuousClock.now + .seconds(5)
        var tracked: [AppID: Set<ProcessIdentity>] = [:]
        while ContinuousClock.now < deadline {
            tracked =
                scheduler.bridge.sync { driver in
                    Dictionary(
                        uniqueKeysWithValues: more.map { ($0, driver.processSupervisor().apps[$0]?.tracked ?? []) }
                    )
                } ?? [:]
            if tracked.values.allSatisfy({ !$0.isEmpty }) { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        for (app, status) in scheduler.processes() where more.contains(app) {
            let pid = try #require(status.pid)
            let stat = try #require(ProcFS.stat(pid))
            #expect(tracked[app] == [ProcessIdentity(pid: pid, startTime: stat.startTime)], "\(app)")
        }
        #expect(apps.isEmpty)
        await scheduler.shutdown()
    }

    @Test("a suspension and a terminate in the launch's own turn reach the new main process and what it forks")
    func suspendAndTerminateInTheLaunchTurn() async throws {
        let directory = try TemporaryPaths.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let suspended = AppID("com.test.launchturn.suspended")
        let terminated = AppID("com.test.launchturn.terminated")
        for app in [suspended, terminated] {
            let script = "sleep 1000 & echo $! > \(directory)/\(app.bundleIdentifier); " + ProcessTestSupport.idleLoop
            try scheduler.register(process: ProcessTestSupport.shell(app, script))
        }
        let mains =
            scheduler.bridge.sync { driver -> [AppID: Int32] in
                try? driver.command(.launch, for: suspended)
                try? driver.command(.launch, for: terminated)
                let supervisor = driver.processSupervisor()
                supervisor.suspend(suspended)
                supervisor.terminate(terminated)
                return [
                    suspended: supervisor.apps[suspended]?.child?.pid ?? 0,
                    terminated: supervisor.apps[terminated]?.child?.pid ?? 0,
                ]
            } ?? [:]
        let suspendedMain = try #require(mains[suspended].flatMap { $0 > 0 ? $0 : nil })
        let terminatedMain = try #require(mains[terminated].flatMap { $0 > 0 ? $0 : nil })
        var confirmed = false
        var tracked: Set<ProcessIdentity> = []
        var terminatedExited = false
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            (confirmed, tracked, terminatedExited) =
                scheduler.bridge.sync { driver in
                    let apps = driver.processSupervisor().apps
                    return (
                        apps[suspended]?.confirmation?.isConfirmed ?? false, apps[suspended]?.tracked ?? [],
                        apps[terminated]?.child?.hasExited ?? false
                    )
                } ?? (false, [], false)
            if confirmed && terminatedExited { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(confirmed, "the suspension made in the launch's turn is confirmed")
        // `D`: the shell was stopped in a vfork() for `sleep`, whose child is stopped before its exec (P1).
        #expect(
            ["T", "D"].contains(ProcFS.stat(suspendedMain)?.state),
            "\(String(describing: ProcFS.stat(suspendedMain)))"
        )
        let forked =
            Int32(
                (try? String(contentsOfFile: directory + "/" + suspended.bundleIdentifier, encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            ) ?? 0
        // Stopped right after its exec, the shell has usually not forked yet; what it forked is stopped too.
        #expect(forked == 0 || ProcFS.stat(forked)?.state == "T", "the forked sleep is stopped too")
        #expect(tracked.contains { $0.pid == suspendedMain }, "the main process is tracked: \(tracked)")
        #expect(terminatedExited, "the terminate in the launch's turn ended the app")
        #expect(ProcFS.stat(terminatedMain) == nil || ProcFS.stat(terminatedMain)?.state == "Z")
        await scheduler.shutdown()
    }

    @Test("a state file written in the launches' own turn lists every main process with its start time")
    func stateFileInTheLaunchTurnListsEveryMain() async throws {
        let directory = try TemporaryPaths.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = ProcessTestSupport.options(.signal)
        options.stateFile = directory + "/state.processes"
        let scheduler = try RunwayScheduler(settings: shortSettings, processOptions: options)
        let apps = (0..<6).map { AppID("com.test.launchturn.state.\($0)") }
        for app in apps {
            try scheduler.register(
                process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
            )
        }
        // The launches and a write of the state file in one hop: one loop turn, as a daemon killed right after.
        let pids =
            scheduler.bridge.sync { driver -> [Int32] in
                for app in apps { try? driver.command(.launch, for: app) }
                let supervisor = driver.processSupervisor()
                supervisor.flushState()
                return apps.compactMap { supervisor.apps[$0]?.child?.pid }
            } ?? []
        #expect(pids.count == apps.count)
        let file = ProcessStateFile(path: directory + "/state.processes")
        let listed = Set((try? file.read().get())?.entries.map(\.process) ?? [])
        for pid in pids {
            let stat = try #require(ProcFS.stat(pid))
            #expect(listed.contains(ProcessIdentity(pid: pid, startTime: stat.startTime)), "main \(pid) listed")
        }
        await scheduler.shutdown()
    }
}
