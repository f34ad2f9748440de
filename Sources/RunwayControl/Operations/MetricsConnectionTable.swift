import NIOCore
import Synchronization

/// The metrics endpoint's open connections, against `MetricsConnectionLimit` (all) and
/// `MetricsPeerConnectionLimit` (one peer address), so that connections held open cannot shut a scraper out.
///
/// A new connection over a limit takes the place of the oldest connection in the same scope (its peer's, or all)
/// that is closing (answered for the last time, lingering), else of the oldest that is waiting for a request and
/// past its `protection` (`min(1 s, MetricsIdleTimeout)` from its opening, time enough to send a request): that
/// one is closed, as the idle timeout or the linger would have closed it. Connections being answered, and young
/// ones, are never closed for a newcomer; when no connection can make room, the newcomer is refused (503 naming
/// the limit). So a client holding idle or slowly-sent connections, even from the
/// scraper's own loopback address, loses them to the next scrape; to refuse a scrape it must open more
/// connections than the limit within every `protection`, and it still cannot hold one past `MetricsIdleTimeout`.
///
/// Threading: any thread (one lock); `admit` returns the connections to close, which the caller closes outside
/// the lock (their close callbacks call `release`).
final class MetricsConnectionTable: Sendable {
    /// What `admit` decided.
    enum Admission {
        /// Admitted; close these first (they made room).
        case admitted(evicting: [any Channel])
        /// Refused: answer 503 with this text.
        case refused(String)
    }

    private struct Entry {
        var channel: any Channel
        var peer: String
        var opened: NIODeadline
        var answering = false
        var closing = false
    }

    let limit: Int
    let peerLimit: Int
    let protection: TimeAmount
    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    init(limit: Int, peerLimit: Int, protection: TimeAmount) {
        self.limit = limit
        self.peerLimit = peerLimit
        self.protection = protection
    }

    /// Counts `channel` in, making room by closing an older waiting connection when a limit is reached.
    func admit(_ channel: any Channel, now: NIODeadline = .now()) -> Admission {
        let peer = channel.remoteAddress?.ipAddress ?? "unknown"
        return self.entries.withLock { entries in
            var evicting: [any Channel] = []
            let peerCount = entries.values.count { $0.peer == peer }
            if peerCount >= self.peerLimit {
                guard let victim = Self.victim(entries, before: now - self.protection, peer: peer) else {
                    return .refused(
                        "too many connections from \(peer): the metrics endpoint serves at most \(self.peerLimit) "
                            + "per address at once (MetricsPeerConnectionLimit)\n"
                    )
                }
                evicting.append(entries.removeValue(forKey: victim)!.channel)
            }
            if entries.count >= self.limit {
                guard let victim = Self.victim(entries, before: now - self.protection, peer: nil) else {
                    return .refused(
                        "too many connections: the metrics endpoint serves at most \(self.limit) at once "
                            + "(MetricsConnectionLimit)\n"
                    )
                }
                evicting.append(entries.removeValue(forKey: victim)!.channel)
            }
            precondition(entries.count < self.limit, "metrics connections over the limit: \(entries.count)")
            entries[ObjectIdentifier(channel)] = Entry(channel: channel, peer: peer, opened: now)
            return .admitted(evicting: evicting)
        }
    }

    /// `channel` is being answered (true) or waits for its next request (false).
    func setAnswering(_ channel: any Channel, _ answering: Bool) {
        self.entries.withLock { $0[ObjectIdentifier(channel)]?.answering = answering }
    }

    /// `channel` was answered for the last time and lingers until it closes.
    func setClosing(_ channel: any Channel) {
        self.entries.withLock { $0[ObjectIdentifier(channel)]?.closing = true }
    }

    /// `channel` closed.
    func release(_ channel: any Channel) {
        self.entries.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// The connection (of `peer`, or of anyone) to close for a newcomer: the oldest closing one, else the oldest
    /// that waits for a request and opened before `cutoff`; nil when none may be closed.
    private static func victim(
        _ entries: [ObjectIdentifier: Entry],
        before cutoff: NIODeadline,
        peer: String?
    ) -> ObjectIdentifier? {
        let scope = entries.filter { peer == nil || $0.value.peer == peer }
        if let closing = scope.filter({ $0.value.closing }).min(by: { $0.value.opened < $1.value.opened }) {
            return closing.key
        }
        return scope.filter { !$0.value.answering && $0.value.opened <= cutoff }
            .min { $0.value.opened < $1.value.opened }?.key
    }
}
