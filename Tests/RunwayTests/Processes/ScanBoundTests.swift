import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

/// The loop's scans cost what changed, not the fleet: the look at this process's own children leaves out the apps'
/// main processes (the loop thread's own children), and the housekeeping tick looks only at the apps waiting for
/// it. Counted on real children, never timed.
@Suite("Process apps: scans bounded by what changed", .serialized)
struct ScanBoundTests {
    @Test("the look at this process's children lists none of the main processes the loop thread started")
    func ownChildrenLookLeavesOutTheLoopThreadsMainProcesses() async throws {
        let (scheduler, apps) = try LaunchedApps.launched(16, .signal)
        let mains = Set(apps.compactMap { scheduler.processes()[$0]?.pid })
        #expect(mains.count == apps.count)
        // On the loop thread, which started them: none listed.
        let onLoop = scheduler.bridge.sync { _ in ProcessTree().ownChildren() } ?? []
        #expect(mains.isDisjoint(with: onLoop), "main processes listed on the loop: \(mains.intersection(onLoop))")
        // On another thread the loop thread's list is read like any other: every one listed.
        let offLoop = ProcessTree().ownChildren()
        #expect(mains.isSubset(of: offLoop))
        // The light look, with 16 apps running, lists none of them.
        let listed = scheduler.bridge.sync { driver -> Int in
            let supervisor = driver.processSupervisor()
            supervisor.scanCounts.ownChildrenListedMost = 0
            supervisor.refreshOwnChildren()
            return supervisor.scanCounts.ownChildrenListedMost
        }
        let others = offLoop.filter { !mains.contains($0) }.count
        #expect(try #require(listed) <= others, "children listed by the light look with \(apps.count) apps running")
        await scheduler.shutdown()
    }

    @Test("a suspension's housekeeping ticks look at the suspended app only, not at every registered app")
    func tickLooksAtTheAppsWaitingForItOnly() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let apps = (0..<400).map { AppID("com.test.scanbound.\($0)") }
        for app in apps {
            try scheduler.register(
                process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
            )
        }
        let suspended = apps[0]
        try scheduler.perform(.launch, on: suspended)
        let before = scheduler.bridge.sync { $0.processSupervisor().scanCounts.tickAppLooks } ?? 0
        try scheduler.perform(.enterBackground, on: suspended)
        #expect(await eventually { scheduler.processes()[suspended]?.suspensionConfirmed == true })
        let looks = (scheduler.bridge.sync { $0.processSupervisor().scanCounts.tickAppLooks } ?? 0) - before
        // One app per tick, a few ticks until the kernel shows it stopped; every app per tick would be 400 a tick.
        #expect(looks >= 1 && looks < apps.count, "apps the ticks looked at while one suspension was confirmed")
        await scheduler.shutdown()
    }
}
