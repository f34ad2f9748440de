import RunwayCore
import RunwayLocking

/// Fans transition events out to every subscriber's `AsyncStream`. Thread-safe.
///
/// Each subscriber buffers at most `bufferLimit` events; a subscriber that falls further behind loses the
/// oldest ones (the stream never blocks the scheduler's loop).
final class EventBroadcaster: Sendable {
    static let bufferLimit = 4_096

    private struct Subscribers: ~Copyable {
        var continuations: [UInt64: AsyncStream<TransitionEvent>.Continuation] = [:]
        var nextID: UInt64 = 0
        var finished = false
    }

    private let subscribers = RunwayLock(Subscribers())

    func subscribe() -> AsyncStream<TransitionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: TransitionEvent.self,
            bufferingPolicy: .bufferingNewest(Self.bufferLimit)
        )
        let id: UInt64? = self.subscribers.withLock { subscribers in
            guard !subscribers.finished else { return nil }
            let id = subscribers.nextID
            subscribers.nextID += 1
            subscribers.continuations[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func yield(_ event: TransitionEvent) {
        let continuations = self.subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(event) }
    }

    func finish() {
        let continuations = self.subscribers.withLock { subscribers in
            subscribers.finished = true
            defer { subscribers.continuations = [:] }
            return Array(subscribers.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
