import NIOCore
import RunwayLocking

/// The metrics endpoint's open connections, against `MetricsConnectionLimit` (all) and
/// `MetricsPeerConnectionLimit` (one peer: an address, and on loopback the uid owning the client's socket
/// whatever its address, `MetricsPeer`), so that connections held open cannot shut a scraper out.
///
/// A new connection over a limit takes the place of a connection in the same scope (its peer's, or all) that is
/// closing (answered for the last time, lingering), else of one that is waiting for a request and past its
/// `protection` (`min(1 s, MetricsIdleTimeout)` from its opening, time enough to send a request); for the overall
/// limit it is taken from the peer holding the most connections, the oldest first. That one is closed, as the idle
/// timeout or the linger would have closed it. Connections being answered are never closed for a newcomer, nor
/// are young ones, but for one case: when every connection is young or answered and the limit of all is reached,
/// a young waiting one of the peer holding the most is closed if that peer holds at least two more than the
/// newcomer's. When no connection can make room, the newcomer is refused (503 naming the limit). So another local
/// user holds at most `MetricsPeerConnectionLimit` connections however fast it opens them, from whichever
/// loopback addresses, and the scraper, a user of its own, always gets a place from whoever holds most;
/// connections held past their first second lose their place to the next newcomer, and none is held past
/// `MetricsIdleTimeout`.
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
        var peer: MetricsPeer
        var opened: NIODeadline
        var answering = false
        var closing = false
    }

    let limit: Int
    let peerLimit: Int
    let protection: TimeAmount
    private let entries = RunwayLock<[ObjectIdentifier: Entry]>([:])

    init(limit: Int, peerLimit: Int, protection: TimeAmount) {
        self.limit = limit
        self.peerLimit = peerLimit
        self.protection = protection
    }

    /// Counts `channel` in, making room by closing an older waiting connection when a limit is reached.
    func admit(_ channel: any Channel, now: NIODeadline = .now()) -> Admission {
        let peer = MetricsPeer(remote: channel.remoteAddress, local: channel.localAddress)
        return self.entries.withLock { entries in
            var evicting: [any Channel] = []
            let peerCount = entries.values.count { $0.peer == peer }
            if peerCount >= self.peerLimit {
                guard let victim = Self.victim(entries, before: now - self.protection, peer: peer) else {
                    return .refused(
                        "too many connections from \(peer): the metrics endpoint serves at most \(self.peerLimit) "
                            + "per peer at once (MetricsPeerConnectionLimit)\n"
                    )
                }
                evicting.append(entries.removeValue(forKey: victim)!.channel)
            }
            if entries.count >= self.limit {
                guard
                    let victim = Self.victim(entries, before: now - self.protection, peer: nil)
                        ?? Self.overShareVictim(entries, for: peer)
                else {
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

    /// When every connection is young or answered: a young one waiting for a request, the oldest, of the peer
    /// holding the most, if that peer holds at least two more than `newcomer`'s (so it keeps at least as many as
    /// the newcomer's peer then has); nil otherwise. Peers that keep every place young cannot shut out a peer
    /// holding fewer, and peers holding alike do not take places from each other.
    private static func overShareVictim(
        _ entries: [ObjectIdentifier: Entry],
        for newcomer: MetricsPeer
    ) -> ObjectIdentifier? {
        let held = Dictionary(grouping: entries.values, by: \.peer).mapValues(\.count)
        let newcomerHeld = held[newcomer] ?? 0
        return entries.filter { !$0.value.answering && held[$0.value.peer, default: 0] > newcomerHeld + 1 }
            .min { first, second in
                let (a, b) = (held[first.value.peer] ?? 0, held[second.value.peer] ?? 0)
                return a != b ? a > b : first.value.opened < second.value.opened
            }?.key
    }

    /// The connection (of `peer`, or of anyone) to close for a newcomer: the oldest closing one, else one that waits
    /// for a request and opened before `cutoff`, of the peer holding the most, the oldest; nil when none may be
    /// closed.
    private static func victim(
        _ entries: [ObjectIdentifier: Entry],
        before cutoff: NIODeadline,
        peer: MetricsPeer?
    ) -> ObjectIdentifier? {
        let scope = entries.filter { peer == nil || $0.value.peer == peer }
        if let closing = scope.filter({ $0.value.closing }).min(by: { $0.value.opened < $1.value.opened }) {
            return closing.key
        }
        let held = Dictionary(grouping: scope.values, by: \.peer).mapValues(\.count)
        return scope.filter { !$0.value.answering && $0.value.opened <= cutoff }
            .min { first, second in
                let (a, b) = (held[first.value.peer] ?? 0, held[second.value.peer] ?? 0)
                return a != b ? a > b : first.value.opened < second.value.opened
            }?.key
    }
}
