import Foundation
import RunwayCore
import Testing

@testable import Runway
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// Issue 15, what a batch makes redundant (Decisions 165-167): one `oom_score_adj` write per app per event with
/// the final value, the first confirmation look on the next loop turn, the environment read once per turn.
/// Real children throughout.
@Suite("Process apps: work a batch makes redundant (issue 15)", .serialized)
struct ProcessBatchTests {
    static let mechanisms: [SuspensionMechanism] =
        ProcessTestSupport.freezerAvailable ? [.signal, .freezer] : [.signal]

    /// `count` `sleep 1000` apps in `mechanism`, launched; the scheduler and their identifiers.
    static func launched(
        _ count: Int,
        _ mechanism: SuspensionMechanism,
        environment: [String: String] = [:]
    ) throws -> (RunwayScheduler, [AppID]) {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let apps = (0..<count).map { AppID("com.test.batch.\($0)") }
        for app in apps {
            let spec = ProcessSpec(arguments: ["/bin/sleep", "1000"], environment: environment)
            try scheduler.register(process: AppDescriptor(id: app, kind: .process(spec)))
        }
        #expect(scheduler.perform(.launch, onEach: apps).isEmpty)
        return (scheduler, apps)
    }

    @Test("Issue 15: Home from the foreground writes oom_score_adj once per app, its final value 1000")
    func oomScoreWrittenOncePerAppWithTheFinalValue() async throws {
        let (scheduler, apps) = try Self.launched(6, .signal)
        // Active -> background (500) -> suspended (1000) in one event per app, the batch in one hop.
        let writes = scheduler.bridge.sync { driver -> Int in
            let supervisor = driver.processSupervisor()
            let before = supervisor.scanCounts.oomScoreWrites
            for app in apps { try? driver.userAction(.home, for: app) }
            return supervisor.scanCounts.oomScoreWrites - before
        }
        #expect(writes == apps.count, "oom_score_adj writes for \(apps.count) apps going Home")
        let processes = scheduler.processes()
        for app in apps {
            let state = scheduler.status().first { $0.app == app }?.state
            #expect(state == .suspended)
            let pid = try #require(processes[app]?.pid)
            #expect(ProcFS.oomScoreAdjust(pid) == 1000, "oom_score_adj of \(app)")
        }
        await scheduler.shutdown()
    }

    @Test("Issue 15: a launch does not write the oom_score_adj the child inherited; a different value is written")
    func launchSkipsTheInheritedOOMScore() async throws {
        let own = try #require(ProcFS.oomScoreAdjust(getpid()))
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let apps = (0..<4).map { AppID("com.test.batch.oom.\($0)") }
        for app in apps {
            try scheduler.register(
                process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
            )
        }
        // Launched active (0), or in the background and suspended at once (no task: 1000): one write per app
        // unless its final value is this process's.
        let (foreground, background) = (Array(apps.prefix(2)), Array(apps.suffix(2)))
        let writes = scheduler.bridge.sync { driver -> Int in
            let supervisor = driver.processSupervisor()
            let before = supervisor.scanCounts.oomScoreWrites
            for app in foreground { try? driver.command(.launch, for: app) }
            for app in background { try? driver.command(.launchInBackground, for: app) }
            return supervisor.scanCounts.oomScoreWrites - before
        }
        let expected = (own == 0 ? 0 : foreground.count) + (own == 1000 ? 0 : background.count)
        #expect(writes == expected, "oom_score_adj writes for 4 launches, this process's value \(own)")
        let processes = scheduler.processes()
        for app in apps {
            let pid = try #require(processes[app]?.pid)
            #expect(ProcFS.oomScoreAdjust(pid) == (foreground.contains(app) ? 0 : 1000), "oom_score_adj of \(app)")
        }
        await scheduler.shutdown()
    }

    @Test(
        "Issue 15: a batch of suspends looks at the kernel on the next turn, and each is confirmed",
        arguments: mechanisms
    )
    func P1_confirmationLooksOnTheNextTurn(mechanism: SuspensionMechanism) async throws {
        let (scheduler, apps) = try Self.launched(8, mechanism)
        let (checks, pending) =
            scheduler.bridge.sync { driver -> (Int, Int) in
                let supervisor = driver.processSupervisor()
                let before = supervisor.scanCounts.confirmationChecks
                for app in apps { try? driver.command(.enterBackground, for: app) }
                let pending = apps.filter { supervisor.apps[$0]?.confirmation?.isPending == true }.count
                return (supervisor.scanCounts.confirmationChecks - before, pending)
            } ?? (-1, -1)
        #expect(checks == 0, "kernel looks in the batch's own turn")
        #expect(pending == apps.count)
        #expect(await eventually { apps.allSatisfy { scheduler.processes()[$0]?.suspensionConfirmed == true } })
        for app in apps {
            let pid = try #require(scheduler.processes()[app]?.pid)
            if mechanism == .signal { #expect(ProcessTestSupport.processState(pid) == "T") }
        }
        // Resumptions the same way.
        #expect(scheduler.perform(.summon, onEach: apps).isEmpty)
        #expect(await eventually { apps.allSatisfy { scheduler.processes()[$0]?.suspensionConfirmed == true } })
        for app in apps {
            let pid = try #require(scheduler.processes()[app]?.pid)
            #expect(ProcessTestSupport.processState(pid) != "T")
        }
        await scheduler.shutdown()
    }

    @Test("Issue 15: a batch of launches reads this process's environment once, each child gets its own")
    func launchesReadTheEnvironmentOncePerTurn() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let apps = (0..<5).map { AppID("com.test.batch.env.\($0)") }
        for (index, app) in apps.enumerated() {
            let spec = ProcessSpec(arguments: ["/bin/sleep", "1000"], environment: ["BATCH_INDEX": "\(index)"])
            try scheduler.register(process: AppDescriptor(id: app, kind: .process(spec)))
        }
        let reads = scheduler.bridge.sync { driver -> Int in
            let supervisor = driver.processSupervisor()
            let before = supervisor.scanCounts.environmentReads
            for app in apps { try? driver.command(.launch, for: app) }
            return supervisor.scanCounts.environmentReads - before
        }
        #expect(reads == 1, "environment reads for \(apps.count) launches in one turn")
        let processes = scheduler.processes()
        for (index, app) in apps.enumerated() {
            let pid = try #require(processes[app]?.pid)
            // The launch returns at the exec's point of no return (Decision 189); the kernel sets up the new
            // environment area a moment later.
            _ = await eventually(timeout: .seconds(5)) { ProcFS.environmentValue(pid, "RUNWAY_APP") != nil }
            #expect(ProcFS.environmentValue(pid, "RUNWAY_APP") == app.bundleIdentifier)
            #expect(ProcFS.environmentValue(pid, "BATCH_INDEX") == "\(index)")
            #expect(ProcFS.environmentValue(pid, "PATH") == ProcessInfo.processInfo.environment["PATH"])
        }
        await scheduler.shutdown()
    }
}
