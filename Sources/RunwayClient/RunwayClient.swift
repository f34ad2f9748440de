// The client side of the app protocol (Behaviour.md A4) for process apps written in Swift.
//
// A process app whose plist declares `RunwayProtocol = 1` inherits a Unix stream socket; its descriptor number is
// in `RUNWAY_FD`. `RunwayClient` reads lifecycle messages from it, hands them to the app one at a time and
// acknowledges each when the app's handler returns (L2), and sends background-task requests. The schema is in
// Docs/AppProtocol.md.

import Foundation
import RunwayCore
import RunwayLocking
import RunwayProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A connection to the Runway scheduler that started this process.
///
/// Threading: every method may be called from any task or thread. One background thread reads the socket;
/// replies resume the awaiting callers, messages are handed to `run`'s handler in order.
public final class RunwayClient: Sendable {
    private let descriptor: Int32
    private let writeLock = RunwayLock<Void>(())
    let state = RunwayLock<State>(State())
    private let messages: AsyncStream<(UInt64, Message)>
    private let messagesContinuation: AsyncStream<(UInt64, Message)>.Continuation

    struct State {
        var nextRequest: Int64 = 1
        var waiting: [Int64: CheckedContinuation<RunwayToApp, any Error>] = [:]
        var closed = false
        var app: String?
        /// `restoredState` parts received before `didFinishLaunching` (RunwayClient+Restoration.swift).
        var restoredText = ""
        var restoration: Restoration?
    }

    /// Connects through `RUNWAY_FD`.
    ///
    /// - Throws: `RunwayClientError.notStartedByRunway` when the variable is missing or not a descriptor number.
    public static func fromEnvironment() throws(RunwayClientError) -> RunwayClient {
        guard let value = ProcessInfo.processInfo.environment[AppProtocol.descriptorEnvironmentKey],
            let descriptor = Int32(value), descriptor >= 0
        else { throw RunwayClientError.notStartedByRunway }
        return RunwayClient(fileDescriptor: descriptor)
    }

    /// Uses an already connected descriptor (the client owns it from now on) and starts reading it.
    public init(fileDescriptor: Int32) {
        self.descriptor = fileDescriptor
        (self.messages, self.messagesContinuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        let thread = Thread { [self] in self.readLoop() }
        thread.name = "runway-client"
        thread.start()
    }

    /// The app's bundle identifier, from the `hello` line (nil until it arrived).
    public var app: String? { self.state.withLock { $0.app } }

    /// Handles lifecycle messages until Runway closes the channel: `handler` is called for each message in order,
    /// one at a time, and the message is acknowledged when it returns (L2). Call it once.
    public func run(_ handler: @Sendable (Message) async -> Void) async {
        for await (token, message) in self.messages {
            await handler(message)
            try? self.send(.ack(token: token))
        }
    }

    /// Asks for extra background time (B1). Returns `.invalid` when refused (suspended, budget gone...).
    public func beginBackgroundTask(name: String) async throws -> BackgroundTaskID {
        let reply = try await self.request { .beginBackgroundTask(request: $0, name: name) }
        guard case .taskBegun(_, let task, _) = reply else { throw RunwayClientError.unexpectedReply("\(reply)") }
        return BackgroundTaskID(rawValue: task)
    }

    /// Ends a background task (B8): throws `RunwayClientError.refused` with the scheduler's code
    /// (`unknownTask`, `alreadyEnded`, `wrongApp`).
    public func endBackgroundTask(_ id: BackgroundTaskID) async throws {
        let reply = try await self.request { .endBackgroundTask(request: $0, task: id.rawValue) }
        guard case .taskEnded = reply else { throw RunwayClientError.unexpectedReply("\(reply)") }
    }

    /// Remaining background time in seconds (B3); `.infinity` in the foreground.
    public func backgroundTimeRemaining() async throws -> Double {
        let reply = try await self.request { .backgroundTimeRemaining(request: $0) }
        guard case .timeRemaining(_, let seconds) = reply else { throw RunwayClientError.unexpectedReply("\(reply)") }
        return seconds ?? .infinity
    }

    // MARK: Plumbing

    func request(_ make: (Int64) -> AppToRunway) async throws -> RunwayToApp {
        let id = self.state.withLock { state in
            defer { state.nextRequest += 1 }
            return state.nextRequest
        }
        let line = make(id)
        let reply = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<RunwayToApp, any Error>) in
            let closed = self.state.withLock { state in
                if !state.closed { state.waiting[id] = continuation }
                return state.closed
            }
            if closed { return continuation.resume(throwing: RunwayClientError.closed) }
            do { try self.send(line) } catch {
                if let waiter = self.state.withLock({ $0.waiting.removeValue(forKey: id) }) {
                    waiter.resume(throwing: error)
                }
            }
        }
        if case .error(_, let code, let message) = reply {
            throw RunwayClientError.refused(code: code, message: message)
        }
        return reply
    }

    private func send(_ line: AppToRunway) throws {
        var bytes = AppProtocolCodec.encode(line)
        bytes.append(UInt8(ascii: "\n"))
        try self.writeLock.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(self.descriptor, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw RunwayClientError.closed
                }
                offset += written
            }
        }
    }

    private func readLoop() {
        var framer = LineFramer(maximumLineBytes: AppProtocol.maximumLineBytes)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(self.descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            for case .line(let bytes) in framer.append(buffer[0..<count]) {
                guard let line = try? AppProtocolCodec.decodeRunwayLine(bytes) else { continue }
                self.dispatch(line)
            }
        }
        self.messagesContinuation.finish()
        let waiting = self.state.withLock { state in
            state.closed = true
            defer { state.waiting = [:] }
            return state.waiting
        }
        for (_, waiter) in waiting { waiter.resume(throwing: RunwayClientError.closed) }
    }

    private func dispatch(_ line: RunwayToApp) {
        switch line {
        case .hello(let app, _):
            self.state.withLock { $0.app = app }
        case .message(let token, let message):
            self.messagesContinuation.yield((token, message))
        case .restoringLaunch(let token, let reason):
            // The restoration is set before the message is queued: the handler reads it with the message.
            self.restoringLaunchReceived(reason: reason)
            self.messagesContinuation.yield((token, .didFinishLaunching))
        case .restoredState(let part, _):
            self.restoredStatePartReceived(part)
        case .taskBegun(let request, _, _), .taskEnded(let request), .timeRemaining(let request, _):
            self.state.withLock { $0.waiting.removeValue(forKey: request) }?.resume(returning: line)
        case .error(let request, _, _):
            if let request { self.state.withLock { $0.waiting.removeValue(forKey: request) }?.resume(returning: line) }
        }
    }
}

/// Why a `RunwayClient` call failed.
public enum RunwayClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `RUNWAY_FD` is missing or not a number: the process was not started by Runway as a protocol app.
    case notStartedByRunway
    /// The channel is closed (Runway is gone or terminated the app).
    case closed
    /// The scheduler answered with an error (`unknownTask`, `alreadyEnded`, `wrongApp`, ...).
    case refused(code: String, message: String)
    /// A reply of the wrong kind (a protocol bug).
    case unexpectedReply(String)

    public var description: String {
        switch self {
        case .notStartedByRunway:
            return "RUNWAY_FD is not set: this process was not started by Runway as a protocol app"
        case .closed: return "the Runway channel is closed"
        case .refused(let code, let message): return "\(code): \(message)"
        case .unexpectedReply(let reply): return "unexpected reply \(reply)"
        }
    }
}
