import Foundation
import NIOCore
@_spi(Processes) import RunwayCore
import Testing

@testable import FunctionHost

/// Requests that arrive together, and the request body limit.
@Suite(.serialized)
struct ConcurrencyAndLimitTests {
    /// Requests that find a launch in progress wait for it and report what it found (cold); one that comes after
    /// it finds the function active (warm). Either way: one launch, one process.
    @Test
    func requestsArrivingTogetherShareOneLaunch() async throws {
        try await HostHarness.with(
            idleSeconds: 5,
            functions: [(name: "py", budgetSeconds: 5, exitsOnSuspend: false)]
        ) { harness in
            let replies = try await withThrowingTaskGroup(of: HTTPClient.Response.self) { group in
                for _ in 0..<5 { group.addTask { try await harness.get("/fn/py/") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.allSatisfy { $0.status == .ok })
            #expect(replies.contains { $0.start == "cold" })
            #expect(replies.allSatisfy { $0.start == "cold" || $0.start == "warm" })
            let counts = try replies.map { try $0.decode(CountReply.self) }
            #expect(Set(counts.map(\.pid)).count == 1)
            #expect(Set(counts.map(\.count)) == [1, 2, 3, 4, 5])
            #expect(harness.events(of: "py").filter { $0.from == .notRunning }.count == 1)
        }
    }

    /// A body over `ProxyLimits.requestByteLimit` is refused with 413 naming the limit; the function is not
    /// started for it.
    @Test
    func aRequestBodyOverTheLimitIsRefusedNamingIt() async throws {
        try await HostHarness.with(
            idleSeconds: 5,
            functions: [(name: "py", budgetSeconds: 5, exitsOnSuspend: false)]
        ) { harness in
            let body = ByteBuffer(repeating: UInt8(ascii: "x"), count: ProxyLimits.requestByteLimit + 1)
            let response = try await harness.client.send(
                .POST,
                "/fn/py/echo",
                to: .tcp(host: "127.0.0.1", port: harness.port),
                body: body
            )
            #expect(response.status == .payloadTooLarge)
            #expect(response.text.contains("\(ProxyLimits.requestByteLimit) bytes"))
            #expect(try await harness.status(of: "py").state == "notRunning")
        }
    }
}
