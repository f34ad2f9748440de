import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

/// A burst of launches (RunAtLoad at the daemon's start, a reload adding apps) goes to the loop in slices: each
/// slice runs in one loop turn, so no turn spawns more than a slice's children, and the loop runs its due deadlines
/// between slices. Real children.
@Suite("Process apps: a burst of launches in slices", .serialized)
struct LaunchSliceTests {
    @Test func aBurstOfLaunchesSpawnsAtMostOneSliceInAnyLoopTurn() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let apps = (0..<40).map { AppID("com.test.slice.\($0)") }
        for app in apps {
            try scheduler.register(
                process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
            )
        }
        let refusals = scheduler.perform(apps.map { (app: $0, command: Command.launch) }, sliceLimit: 8)
        #expect(refusals.isEmpty, "\(refusals)")
        let most = scheduler.bridge.sync { $0.processSupervisor().scanCounts.spawnsInOneTurnMost } ?? -1
        #expect(most == 8, "children spawned in one loop turn, 40 launches in slices of 8")
        let states = scheduler.status().filter { apps.contains($0.app) }.map(\.state)
        #expect(states.count == apps.count && states.allSatisfy { $0 == .active }, "\(states)")
        await scheduler.shutdown()
    }

    @Test func aRefusedLaunchDoesNotStopTheRestOfItsSlice() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let apps = (0..<3).map { AppID("com.test.slice.refused.\($0)") }
        for app in apps {
            try scheduler.register(
                process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
            )
        }
        let unknown = AppID("com.test.slice.unknown")
        let commands = [
            (app: apps[0], command: Command.launch), (unknown, .launch), (apps[1], .launch), (apps[2], .launch),
        ]
        let refusals = scheduler.perform(commands, sliceLimit: 2)
        #expect(Array(refusals.keys) == [unknown])
        #expect(refusals[unknown]?.code == .unknownApp)
        #expect(scheduler.status().filter { apps.contains($0.app) }.allSatisfy { $0.state == .active })
        await scheduler.shutdown()
    }
}
