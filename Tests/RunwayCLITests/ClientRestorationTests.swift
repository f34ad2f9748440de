import Foundation
import RunwayCore
import Testing

@testable import RunwayClient

#if canImport(Glibc)
import Glibc
#endif

/// `RunwayClient`'s side of state restoration (R1, R2) over a real socket pair, the test playing Runway: a state is
/// sent in parts that stay under the line limit and join to it, and the restoredState parts before a restoring
/// `didFinishLaunching` reach the handler joined, with the restoration's reason.
@Suite(.serialized) struct ClientRestorationTests {
    /// Runway's end of a socket pair whose other end a `RunwayClient` owns.
    final class RunwayEnd {
        let fd: Int32
        private var buffered: [UInt8] = []

        init(_ fd: Int32) {
            self.fd = fd
        }

        deinit { _ = close(self.fd) }

        func send(_ json: String) {
            let bytes = Array((json + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(self.fd, $0.baseAddress, $0.count) }
        }

        /// The next line the client wrote, as its size in bytes and as a JSON object. Polls without blocking, so
        /// that the cooperative thread it waits on stays free for the client's tasks.
        func line() async throws -> (bytes: Int, object: [String: Any]) {
            let deadline = ContinuousClock.now + .seconds(10)
            while true {
                if let newline = self.buffered.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = Array(self.buffered[..<newline])
                    self.buffered.removeSubrange(...newline)
                    let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] ?? [:]
                    return (line.count, object)
                }
                var chunk = [UInt8](repeating: 0, count: 65_536)
                let count = chunk.withUnsafeMutableBytes {
                    recv(self.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                }
                if count > 0 {
                    self.buffered.append(contentsOf: chunk[..<count])
                } else if count < 0 && (errno == EAGAIN || errno == EINTR) && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(1))
                } else {
                    throw RunwayClientError.closed
                }
            }
        }
    }

    /// What the handler was given, in order.
    actor Seen<Item: Sendable> {
        var items: [Item] = []

        func append(_ item: Item) {
            self.items.append(item)
        }
    }

    static func pair() -> (RunwayClient, RunwayEnd) {
        var fds: [Int32] = [0, 0]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0, "socketpair failed: \(errno)")
        return (RunwayClient(fileDescriptor: fds[0]), RunwayEnd(fds[1]))
    }

    @Test func R1_aStateIsSentInPartsUnderTheLineLimitThatJoinToIt() async throws {
        let (client, runway) = Self.pair()
        var generator = SystemRandomNumberGenerator()
        let state = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let preserving = Task { try await client.preserveState(state) }
        var text = ""
        var parts = 0
        while true {
            let (bytes, line) = try await runway.line()
            #expect(line["type"] as? String == "preserveState")
            #expect(bytes < 65_536)
            let part = try #require(line["state"] as? String)
            #expect(part.utf8.count <= 32_768)
            text += part
            parts += 1
            runway.send(#"{"type":"reply","request":\#(line["request"] as? Int ?? 0)}"#)
            if line["more"] as? Bool != true { break }
        }
        try await preserving.value
        // 100,000 bytes are 133,336 characters of base64: five parts.
        #expect(parts == 5)
        #expect(Data(base64Encoded: text).map { Array($0) } == state)
    }

    @Test func R1_aRefusedPartEndsThePreservationWithTheDaemonsError() async throws {
        let (client, runway) = Self.pair()
        let preserving = Task { try await client.preserveState(text: String(repeating: "x", count: 20_000)) }
        let (_, first) = try await runway.line()
        #expect(first["more"] as? Bool == true)
        runway.send(
            #"{"type":"error","request":\#(first["request"] as? Int ?? 0),"code":"stateTooLarge","#
                + #""error":"the state is more than StateRestorationByteLimit (16384 bytes)"}"#
        )
        // R1: Runway refuses the rest of a refused state up to its last part, so the client ends it at once.
        let (_, last) = try await runway.line()
        #expect(last["type"] as? String == "preserveState")
        #expect(last["more"] == nil && last["state"] as? String == "", "\(last)")
        runway.send(
            #"{"type":"error","request":\#(last["request"] as? Int ?? 0),"code":"stateTooLarge","#
                + #""error":"the state is more than StateRestorationByteLimit (16384 bytes)"}"#
        )
        await #expect(
            throws: RunwayClientError.refused(
                code: "stateTooLarge",
                message: "the state is more than StateRestorationByteLimit (16384 bytes)"
            )
        ) { try await preserving.value }
    }

    @Test func R2_restoredStatePartsReachTheDidFinishLaunchingHandlerJoined() async throws {
        let (client, runway) = Self.pair()
        let received = Task {
            let seen = Seen<(Message, Restoration?)>()
            await client.run { message, restoration in await seen.append((message, restoration)) }
            return await seen.items
        }
        runway.send(#"{"type":"hello","app":"com.example.counter","version":1}"#)
        runway.send(#"{"type":"restoredState","state":"{\"coun","more":true}"#)
        runway.send(#"{"type":"restoredState","state":"ter\":41","more":true}"#)
        runway.send(#"{"type":"restoredState","state":"}"}"#)
        runway.send(#"{"type":"message","token":1,"message":"didFinishLaunching","restoration":"purged"}"#)
        #expect(try await runway.line().object["token"] as? Int == 1)
        runway.send(#"{"type":"message","token":2,"message":"didBecomeActive"}"#)
        #expect(try await runway.line().object["token"] as? Int == 2)
        _ = shutdown(runway.fd, Int32(SHUT_RDWR))
        let seen = await received.value
        #expect(seen.map(\.0) == [.didFinishLaunching, .didBecomeActive])
        #expect(seen.first?.1 == Restoration(text: #"{"counter":41}"#, reason: "purged"))
        #expect(seen.last?.1 == nil)
        #expect(client.restoration?.bytes == nil)
    }

    @Test func R2_aLaunchThatRestoresNothingHasNoRestoration() async throws {
        let (client, runway) = Self.pair()
        let received = Task {
            let seen = Seen<Restoration?>()
            await client.run { _, restoration in await seen.append(restoration) }
            return await seen.items
        }
        runway.send(#"{"type":"message","token":1,"message":"didFinishLaunching"}"#)
        #expect(try await runway.line().object["token"] as? Int == 1)
        _ = shutdown(runway.fd, Int32(SHUT_RDWR))
        #expect(await received.value == [nil])
        #expect(client.restoration == nil)
    }

    @Test func R1_partsNeverCutAScalarAndStayWithinTheirSize() {
        let text = String(repeating: "aé€😀", count: 1_000)
        for size in [4, 5, 7, 8_192] {
            let parts = RunwayClient.parts(of: text, maximumBytes: size)
            #expect(parts.joined() == text)
            #expect(parts.allSatisfy { $0.utf8.count <= size && !$0.isEmpty })
        }
        #expect(RunwayClient.parts(of: "", maximumBytes: 8) == [""])
    }
}
