import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

/// Registering many process apps (the daemon's start, a reload adding apps) goes to the loop in slices, one loop
/// turn each, not one hop per app: counted as the loop's inbox batches, not timed.
@Suite("Process apps: registration in slices", .serialized)
struct RegistrationSliceTests {
    static func descriptors(_ count: Int, prefix: String) -> [AppDescriptor] {
        (0..<count).map {
            AppDescriptor(
                id: AppID("\(prefix).\($0)"),
                kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"]))
            )
        }
    }

    /// The hops to the loop (inbox batches it ran) while `count` process apps are registered, and the apps
    /// registered.
    static func registrationHops(_ count: Int) async throws -> (hops: Int, registered: Int) {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        // The process supervisor exists before counting, as in the daemon (it ends a predecessor's leftovers first).
        scheduler.endProcessesLeftByPreviousRun()
        let loop = scheduler.loopThread
        let before = try #require(scheduler.bridge.sync { _ in loop.inboxBatchesRun })
        let refusals = scheduler.register(processes: Self.descriptors(count, prefix: "com.test.registration"))
        // The reading is a batch of its own.
        let hops = try #require(scheduler.bridge.sync { _ in loop.inboxBatchesRun }) - before - 1
        #expect(refusals.isEmpty, "\(refusals)")
        let registered = scheduler.processes().count
        await scheduler.shutdown()
        return (hops, registered)
    }

    @Test func registeringManyProcessAppsTakesOneLoopTurnPerSlice() async throws {
        let (hops, registered) = try await Self.registrationHops(1_024)

        #expect(registered == 1_024)
        // 4 slices of 256, where one hop per app would be 1,024 (a batch the loop ran for anything else counts too).
        #expect((4...6).contains(hops), "\(hops) hops to the loop to register 1,024 apps")
    }

    @Test func registeringTwiceTheAppsTakesTwiceTheLoopTurns() async throws {
        let small = try await Self.registrationHops(512)
        let large = try await Self.registrationHops(1_024)

        #expect(small.registered == 512 && large.registered == 1_024)
        #expect((2...4).contains(small.hops) && (4...6).contains(large.hops), "\(small.hops) then \(large.hops) hops")
    }

    @Test func aRefusedRegistrationDoesNotStopTheRestOfItsSlice() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let apps = Self.descriptors(3, prefix: "com.test.registration.refused")
        try scheduler.register(process: apps[1])
        let embedded = AppDescriptor(id: AppID("com.test.registration.embedded"), kind: .embedded)

        let refusals = scheduler.register(processes: [apps[0], apps[1], embedded, apps[2]])

        #expect(refusals.count == 2)
        #expect(refusals[apps[1].id]?.code == .duplicateApp)
        #expect(refusals[embedded.id]?.code == .unsupportedApp)
        #expect(Set(scheduler.processes().keys) == Set(apps.map(\.id)))
        await scheduler.shutdown()
    }
}
