import Foundation
@_spi(Processes) import Runway
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@testable import RunwayControl

/// `status` with `summary` (Docs/ControlProtocol.md): counts over every app kept by the transitions, on a real
/// scheduler; no app is listed, so the fleet's size does not show in the reply.
@Suite struct StatusSummaryTests {
    static func summary(_ service: ControlService) -> StatusSummaryPayload? {
        service.statusReply(ControlRequest(command: "status", summary: true), app: nil, id: nil).summary
    }

    @Test func summaryCountsAppsPerStateFromTheTransitionsWithoutListingThem() async throws {
        let (service, scheduler) = try StatusReplyBoundTests.service(apps: 10_000)
        service.followTransitions()
        for number in 0..<3 { try scheduler.perform(.launch, on: AppID("com.example.app\(number)")) }
        try scheduler.perform(.enterBackground, on: "com.example.app0")
        // The stand-in apps return from their messages on later loop turns: wait for the last transition.
        let first = StatusQuery(app: "com.example.app0", limit: 1, taskLimit: 0)
        var waits = 0
        while scheduler.statusPage(first).statuses.first?.state != .suspended, waits < 500 {
            try await Task.sleep(for: .milliseconds(10))
            waits += 1
        }
        // The summary and a snapshot of every app, in one loop turn: the counts agree with the apps' states.
        let (reply, states) = try #require(
            scheduler.runOnLoop {
                (
                    service.statusReply(ControlRequest(command: "status", summary: true), app: nil, id: nil),
                    scheduler.status(taskLimit: 0).map(\.state)
                )
            }
        )
        for state in AppState.allCases {
            #expect(reply.summary?.inState[state.rawValue] == states.count { $0 == state }, "\(state)")
        }
        #expect(reply.apps == nil)
        #expect(ControlProtocol.encodedLine(reply).count < 1_024)
        let summary = try #require(reply.summary)
        // The stand-in app returns from didEnterBackground at once and holds no task: suspended (B1).
        #expect(
            summary.inState == [
                "notRunning": 9_997, "inactive": 0, "active": 2, "background": 0, "suspended": 1,
            ]
        )
        #expect(summary.apps == 10_000)
        #expect(summary.running == 3)
        #expect(summary.tasks == 0)

        // An app registered since (a reload) is counted in notRunning.
        try scheduler.register(AppDescriptor(id: "com.example.late"), delegate: StandInApp())
        #expect(Self.summary(service)?.inState["notRunning"] == 9_998)
        #expect(Self.summary(service)?.apps == 10_001)
        await scheduler.shutdown()
    }

    @Test func summaryRefusesAFilterOrAPage() async throws {
        let (service, scheduler) = try StatusReplyBoundTests.service(apps: 2)
        service.followTransitions()
        let reply = service.statusReply(
            ControlRequest(command: "status", state: "active", summary: true),
            app: nil,
            id: 7
        )
        #expect(reply.error?.code == "invalidRequest")
        #expect(reply.error?.message.contains("field 'summary'") == true, "\(reply)")
        #expect(reply.id == 7)
        await scheduler.shutdown()
    }
}

/// Status replies are encoded off the loop thread, and each connection still gets its replies in the order of its
/// requests (`ControlService+Encoding.swift`). Counted on a real socket, never timed.
@Suite struct StatusEncodingTests {
    static func served(apps count: Int) throws -> (ControlService, RunwayScheduler, ControlClient, String) {
        let (service, scheduler) = try StatusReplyBoundTests.service(apps: count)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rw-enc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("s").path
        try service.start(path: path)
        return (service, scheduler, try ControlClient(path: path), directory.path)
    }

    static func lines(_ requests: [ControlRequest]) -> [UInt8] {
        requests.flatMap { ControlProtocol.encodedLine($0) }
    }

    @Test func aStatusPageIsEncodedOffTheLoopThread() async throws {
        let (service, scheduler, client, directory) = try Self.served(apps: 2_000)
        let reply = try client.request(ControlRequest(command: "status"))
        #expect(reply.apps?.count == ControlService.statusPageLimit)
        #expect(service.encodingCounts.withLock { $0 } == ControlService.EncodingCounts(onLoop: 0, offLoop: 1))
        await scheduler.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test func repliesComeInRequestOrderAndALimitBoundsTheRepliesBeingEncoded() async throws {
        let (service, scheduler, client, directory) = try Self.served(apps: 2_000)
        // One write: six pages, then a summary that is ready at once. The loop reads them in one turn, so the
        // fifth and sixth pages find four being encoded (statusEncodingLimit) and are refused; the summary still
        // comes last.
        var requests = (1...6).map { ControlRequest(command: "status", id: $0) }
        requests.append(ControlRequest(command: "status", id: 7, summary: true))
        try client.send(Self.lines(requests))
        var replies: [ControlReply] = []
        for _ in requests {
            let line = try #require(try client.readLine())
            replies.append(try ControlClient.decode(ControlReply.self, line))
        }
        #expect(replies.map(\.id) == [1, 2, 3, 4, 5, 6, 7])
        #expect(replies.map { $0.error?.code } == [nil, nil, nil, nil, "tooManyRequests", "tooManyRequests", nil])
        #expect(replies[4].error?.message.contains("(statusEncodingLimit)") == true)
        #expect(replies[6].summary?.apps == 2_000)
        #expect(service.encodingCounts.withLock { $0.offLoop } == 4)
        await scheduler.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test func replyOrderHoldsAReadyReplyBehindOneBeingEncoded() {
        var order = ReplyOrder()
        let first = order.reserve(for: 1)
        #expect(order.ready([2], for: 1) == [])
        // Another connection is not held back.
        #expect(order.ready([9], for: 2) == [[9]])
        let third = order.reserve(for: 1)
        #expect(order.encoding(for: 1) == 2)
        #expect(order.encoded([1], ticket: first, for: 1) == [[1], [2]])
        #expect(order.encoded([3], ticket: third, for: 1) == [[3]])
        #expect(order.connectionsWaiting == 0)
        // A connection closed while its reply was encoded gets nothing, and nothing is kept for it.
        let lost = order.reserve(for: 3)
        order.closed(3)
        #expect(order.encoded([4], ticket: lost, for: 3) == [])
        #expect(order.connectionsWaiting == 0)
    }
}
