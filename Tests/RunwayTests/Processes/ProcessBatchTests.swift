import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// What a batch makes redundant: one `oom_score_adj` write per app per event with the final value, the first
/// confirmation look on the next loop turn, the environment read once per turn, the list of this process's children
/// read once per turn of confirmations or exits instead of once per app. Real children throughout.
@Suite("Process apps: work a batch makes redundant", .serialized)
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

    @Test("Home from the foreground writes oom_score_adj once per app, its final value 1000")
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

    @Test(
        "a batch of N freezer launches looks at N apps to decide the periodic scan, not at every app per launch",
        .enabled(if: ProcessTestSupport.freezerAvailable)
    )
    func launchesDecideThePeriodicScanFromTheLaunchedAppOnly() async throws {
        // Freezer apps without a state file never need the periodic scan, so nothing stops the look early.
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.freezer)
        )
        let apps = (0..<12).map { AppID("com.test.batch.scan.\($0)") }
        for app in apps {
            try scheduler.register(
                process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
            )
        }
        let looks = scheduler.bridge.sync { driver -> Int in
            let supervisor = driver.processSupervisor()
            let before = supervisor.scanCounts.periodicScanLooks
            for app in apps { try? driver.command(.launch, for: app) }
            return supervisor.scanCounts.periodicScanLooks - before
        }
        #expect(looks == apps.count, "apps looked at for \(apps.count) launches")
        #expect(scheduler.processes().values.filter { $0.pid != nil }.count == apps.count)
        await scheduler.shutdown()
    }

    @Test("a launch does not write the oom_score_adj the child inherited; a different value is written")
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
        "a batch of suspends looks at the kernel on the next turn, and each is confirmed",
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

    @Test("a batch of launches reads the environment and RLIMIT_NOFILE once and looks up each program once, per turn")
    func launchesReadTheEnvironmentOncePerTurn() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let apps = (0..<6).map { AppID("com.test.batch.env.\($0)") }
        for (index, app) in apps.enumerated() {
            // Two programs in the batch: a path, and a bare name found through PATH.
            let program = index < 3 ? "/bin/sleep" : "sleep"
            let spec = ProcessSpec(arguments: [program, "1000"], environment: ["BATCH_INDEX": "\(index)"])
            try scheduler.register(process: AppDescriptor(id: app, kind: .process(spec)))
        }
        func launching(_ batch: ArraySlice<AppID>) -> ProcessScanCounts? {
            scheduler.bridge.sync { driver -> ProcessScanCounts in
                let supervisor = driver.processSupervisor()
                let before = supervisor.scanCounts
                for app in batch { try? driver.command(.launch, for: app) }
                var delta = supervisor.scanCounts
                delta.environmentReads -= before.environmentReads
                delta.programLookups -= before.programLookups
                delta.descriptorLimitReads -= before.descriptorLimitReads
                return delta
            }
        }
        let batch = try #require(launching(apps.dropLast()))
        #expect(batch.environmentReads == 1, "environment reads for 5 launches in one turn")
        #expect(batch.programLookups == 2, "program lookups for 5 launches of two programs in one turn")
        #expect(batch.descriptorLimitReads == 1, "RLIMIT_NOFILE reads for 5 launches in one turn")
        // A later turn looks again: a program installed or removed since then is seen.
        let later = try #require(launching(apps.suffix(1)))
        #expect(later.programLookups == 1 && later.descriptorLimitReads == 1, "a launch in a later turn")
        let processes = scheduler.processes()
        for (index, app) in apps.enumerated() {
            let pid = try #require(processes[app]?.pid)
            // The launch returns at the exec's point of no return; the kernel sets up the new
            // environment area a moment later.
            _ = await eventually(timeout: .seconds(5)) { ProcFS.environmentValue(pid, "RUNWAY_APP") != nil }
            #expect(ProcFS.environmentValue(pid, "RUNWAY_APP") == app.bundleIdentifier)
            #expect(ProcFS.environmentValue(pid, "BATCH_INDEX") == "\(index)")
            #expect(ProcFS.environmentValue(pid, "PATH") == ProcessInfo.processInfo.environment["PATH"])
        }
        await scheduler.shutdown()
    }

    @Test(
        "a batch of N suspends reads this process's list of children at the confirmations, not once per app"
    )
    func batchReadsTheChildListOnce() async throws {
        let (scheduler, apps) = try LaunchedApps.launched(12, .signal)
        // The batch and the count in one hop: one loop turn, in which nothing is scanned.
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
        // of them, so fewer times than there are apps.
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

    @Test("N exits do not sweep the whole child list N times, and an orphan that exits is still reaped")
    func exitsDoNotSweepPerExit() async throws {
        let (scheduler, apps) = try LaunchedApps.launched(12, .signal)
        // One more app leaves an orphan behind that exits a little later: it must still be reaped.
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("runway-batch-\(UUID())").path
        defer { unlink(pidFile) }
        let leaver: AppID = "com.test.batch.leaver"
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
