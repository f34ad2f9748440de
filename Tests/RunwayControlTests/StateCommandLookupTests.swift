import Foundation
@_spi(Processes) import Runway
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@testable import RunwayControl

/// The state commands (R7) find their app without a snapshot of every app: at 10,000 apps, 50 of them cost the loop
/// less than a few snapshots of the whole fleet. Compared with a snapshot taken on the same machine at the same
/// time, so the load of the machine does not decide the outcome.
@Suite struct StateCommandLookupTests {
    @Test func R7_aStateCommandLooksUpItsOneAppNotTheWholeFleet() async throws {
        let (service, scheduler) = try StatusReplyBoundTests.service(apps: 10_000)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rw-look-\(UUID().uuidString)")
        service.restoration = DaemonRestoration(directory: directory.path, byteLimit: 1_024, apps: [], report: { _ in })
        let clock = ContinuousClock()
        let snapshot = try #require(
            scheduler.runOnLoop { clock.measure { _ = scheduler.status(taskLimit: 0).count } }
        )
        let commands = try #require(
            scheduler.runOnLoop {
                clock.measure {
                    for id in 0..<50 {
                        // An app that is not registered: the lookup alone, answered at once.
                        let request = ControlRequest(command: "discardState", app: "com.example.none", id: id)
                        let reply = service.stateReply(.discardState, request, app: "com.example.none", connection: 1)
                        #expect(reply?.error?.code == "unknownApp")
                    }
                }
            }
        )
        #expect(commands < snapshot * 5, "50 lookups \(commands), one snapshot of 10,000 apps \(snapshot)")
        await scheduler.shutdown()
    }
}
