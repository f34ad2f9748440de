import Foundation
@_spi(Processes) import Runway
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@testable import RunwayControl

/// A `status` page asked on a connection is taken in slices, one per loop turn, each comparing and snapshotting a
/// bounded number of apps whatever the fleet and the page (`ControlService+StatusSlices.swift`). Counted on a real
/// socket, never timed.
@Suite struct StatusSliceTests {
    @Test func aFullPageAtFiveThousandAppsIsSnapshottedInBoundedSlices() async throws {
        let (service, scheduler, client, directory) = try StatusEncodingTests.served(apps: 5_000)
        let reply = try client.request(ControlRequest(command: "status"))
        #expect(reply.apps?.count == ControlService.statusPageLimit)
        #expect(reply.apps?.first?.app == "com.example.app0")
        #expect(reply.matched == 5_000)
        #expect(reply.next == "com.example.app999")
        let counts = try #require(scheduler.runOnLoop { service.statusSliceCounts })
        #expect(counts.pages == 1)
        #expect(counts.mostRows <= ControlService.statusSliceRowLimit, "rows snapshotted in one loop turn")
        #expect(counts.mostCompared <= ControlService.statusSliceCompareLimit, "apps compared in one loop turn")
        #expect(counts.slices >= ControlService.statusPageLimit / ControlService.statusSliceRowLimit)
        await scheduler.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test func aFilteredPageAndOneAppAreAnsweredFromSlicesAndAnUnknownAppIsRefused() async throws {
        let (service, scheduler, client, directory) = try StatusEncodingTests.served(apps: 3_000)
        // app1, app10 ... app19, app100 ... app199, app1000 ... app1999: 1,111 matches, the page the first 1,000.
        let pattern = try client.request(ControlRequest(command: "status", appPattern: "com.example.app1*"))
        #expect(pattern.matched == 1_111)
        #expect(pattern.apps?.count == ControlService.statusPageLimit)
        #expect(pattern.apps?.allSatisfy { $0.app.hasPrefix("com.example.app1") } == true)
        let one = try client.request(ControlRequest(command: "status", app: "com.example.app2999"))
        #expect(one.apps?.map(\.app) == ["com.example.app2999"])
        #expect(one.matched == 1)
        let unknown = try client.request(ControlRequest(command: "status", app: "com.example.none"))
        #expect(unknown.error?.code == "unknownApp")
        let counts = try #require(scheduler.runOnLoop { service.statusSliceCounts })
        #expect(counts.pages == 3)
        #expect(counts.mostRows <= ControlService.statusSliceRowLimit)
        #expect(counts.mostCompared <= ControlService.statusSliceCompareLimit)
        await scheduler.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
