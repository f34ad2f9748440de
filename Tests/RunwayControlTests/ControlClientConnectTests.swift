import Foundation
import RunwayLocking
import Testing

@testable import RunwayControl

/// Connecting to the control socket is bounded like the reply: a daemon that listens but accepts nothing (its
/// queue of connections full: busy, or stopped) cannot hang a command.
@Suite struct ControlClientConnectTests {
    /// What the connecting thread got.
    final class Outcome: Sendable {
        let error = RunwayLock<ControlClientError?>(nil)
        let connected = RunwayLock(false)
    }

    /// A Unix socket listening at `path` with a queue of one connection, never accepting.
    static func listener(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        var address = Self.address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0 && listen(fd, 0) == 0, "bind and listen on \(path): errno \(errno)")
        return fd
    }

    static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (offset, byte) in path.utf8.enumerated() { raw[offset] = byte }
        }
        return address
    }

    /// Connects without waiting until the listener's queue refuses (EAGAIN); returns the queued connections.
    static func fillQueue(of path: String) -> [Int32] {
        var queued: [Int32] = []
        var address = Self.address(path)
        while queued.count < 64 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard status == 0 else {
                _ = close(fd)
                break
            }
            queued.append(fd)
        }
        return queued
    }

    @Test func connectingToADaemonWhoseQueueIsFullFailsAfterTheTimeoutNamingThePath() throws {
        let path = "/tmp/runway-full-queue-\(UUID().uuidString.prefix(8)).sock"
        var listener = try Self.listener(at: path)
        defer {
            if listener >= 0 { _ = close(listener) }
            unlink(path)
        }
        let queued = Self.fillQueue(of: path)
        defer { for fd in queued { _ = close(fd) } }
        try #require(queued.count < 64, "the listener's queue fills")

        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let start = ContinuousClock.now
        let thread = Thread {
            do throws(ControlClientError) {
                _ = try ControlClient(path: path, replyTimeoutSeconds: 1)
                outcome.connected.withLock { $0 = true }
            } catch {
                outcome.error.withLock { $0 = error }
            }
            done.signal()
        }
        thread.start()
        let returned = done.wait(timeout: .now() + 15) == .success
        let elapsed = ContinuousClock.now - start
        if !returned {
            // Closing the listener wakes a connect that waits for its queue, so that the test ends.
            _ = close(listener)
            listener = -1
            done.wait()
        }
        #expect(returned, "connect returned within 15 s, given a 1 s timeout")
        #expect(elapsed >= .milliseconds(900), "it waited for the timeout: \(elapsed)")
        #expect(!outcome.connected.withLock { $0 })
        let error = outcome.error.withLock { $0 }
        #expect(error?.kind == .noReply, "\(String(describing: error))")
        #expect(error?.message.contains(path) == true, "\(String(describing: error))")
        #expect(error?.message.contains("within 1 s") == true, "\(String(describing: error))")
    }

    @Test func aReplyThatDoesNotComeFailsAfterTheTimeoutNamingThePathAndItsOrigin() throws {
        let path = "/tmp/runway-silent-\(UUID().uuidString.prefix(8)).sock"
        let listener = try Self.listener(at: path)
        defer {
            _ = close(listener)
            unlink(path)
        }
        // The connection waits in the listener's queue: connected, never answered.
        let client = try ControlClient(path: path, replyTimeoutSeconds: 1)
        client.pathOrigin = "from RUNWAY_SOCKET"
        do throws(ControlClientError) {
            _ = try client.request(ControlRequest(command: "status"))
            Issue.record("a reply came from a listener that accepts nothing")
        } catch {
            #expect(error.kind == .noReply, "\(error)")
            #expect(
                error.message == "no reply from the daemon on \(path) within 1 s. The path is from RUNWAY_SOCKET",
                "\(error)"
            )
        }
    }
}
