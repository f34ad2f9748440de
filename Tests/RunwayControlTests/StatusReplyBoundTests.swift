import Foundation
@_spi(Processes) import Runway
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@testable import RunwayControl

/// A `status` reply lists, and so snapshots and encodes on the loop, at most its `limit` apps whatever the fleet
/// (Docs/ControlProtocol.md, `statusPageLimit`): counted in apps and bytes on a real scheduler, never in seconds.
@Suite struct StatusReplyBoundTests {
    static func service(apps count: Int) throws -> (ControlService, RunwayScheduler) {
        let scheduler = try RunwayScheduler()
        for number in 0..<count {
            try scheduler.register(AppDescriptor(id: AppID("com.example.app\(number)")), delegate: StandInApp())
        }
        let service = ControlService(
            scheduler: scheduler,
            info: { DaemonInfo(pid: 1, config: "/config", socket: "/socket", uptimeSeconds: 0) },
            reload: { _ in .failure(ControlErrorPayload(code: "reloadFailed", message: "not in this test")) }
        )
        return (service, scheduler)
    }

    @Test func aStatusReplyAtTenThousandAppsListsAndEncodesAtMostItsLimit() async throws {
        let (service, scheduler) = try Self.service(apps: 10_000)
        let small = service.statusReply(ControlRequest(command: "status", limit: 20), app: nil, id: nil)
        #expect(small.apps?.count == 20)
        #expect(small.matched == 10_000)
        #expect(small.next == "com.example.app19")
        // Twenty rows of about 300 bytes: the fleet's size does not show in the reply.
        #expect(ControlProtocol.encodedLine(small).count < 20 * 1_024)

        let fullPage = service.statusReply(ControlRequest(command: "status"), app: nil, id: nil)
        #expect(fullPage.apps?.count == ControlService.statusPageLimit)
        #expect(fullPage.next == "com.example.app999")

        let tooMany = service.statusReply(ControlRequest(command: "status", limit: 1_001), app: nil, id: nil)
        #expect(tooMany.error?.code == "invalidRequest")
        #expect(tooMany.error?.message.contains("(statusPageLimit)") == true, "\(tooMany)")
        await scheduler.shutdown()
    }
}
