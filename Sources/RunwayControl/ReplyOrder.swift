/// Keeps each connection's replies in the order of its requests while some of them are encoded off the loop
/// thread: a reply ready at once waits behind the ones still being encoded for the same connection.
///
/// Bounded: a connection holds at most the replies it asked for and has not been sent; the caller limits those
/// being encoded (`ControlService.statusEncodingLimit`). Not thread-safe: the loop thread owns it.
struct ReplyOrder {
    typealias ConnectionID = ControlSocketServer.ConnectionID

    /// Per connection with something waiting: its replies not yet sent, oldest first; `line` is nil while that
    /// reply is being encoded.
    private var waiting: [ConnectionID: [(ticket: UInt64, line: [UInt8]?)]] = [:]
    private var nextTicket: UInt64 = 1

    /// Replies of `connection` being encoded now.
    func encoding(for connection: ConnectionID) -> Int {
        self.waiting[connection]?.reduce(0) { $0 + ($1.line == nil ? 1 : 0) } ?? 0
    }

    /// Connections with a reply waiting (tests).
    var connectionsWaiting: Int { self.waiting.count }

    /// Takes the next place in `connection`'s order for a reply encoded elsewhere; `encoded` fills it.
    mutating func reserve(for connection: ConnectionID) -> UInt64 {
        let ticket = self.nextTicket
        self.nextTicket += 1
        self.waiting[connection, default: []].append((ticket, nil))
        return ticket
    }

    /// True while `ticket`'s reply is still to be sent on `connection` (false once the connection closed).
    func isWaiting(_ ticket: UInt64, for connection: ConnectionID) -> Bool {
        self.waiting[connection]?.contains { $0.ticket == ticket } ?? false
    }

    /// A reply ready now: the lines to send now, in order (`line` alone when nothing waits before it, none while
    /// an earlier reply is still being encoded).
    mutating func ready(_ line: [UInt8], for connection: ConnectionID) -> [[UInt8]] {
        guard self.waiting[connection] != nil else { return [line] }
        self.waiting[connection]?.append((0, line))
        return []
    }

    /// The reply of `ticket` is encoded: the lines to send now, in order (those ready at the front). None for a
    /// connection closed since.
    mutating func encoded(_ line: [UInt8], ticket: UInt64, for connection: ConnectionID) -> [[UInt8]] {
        guard var queue = self.waiting[connection], let place = queue.firstIndex(where: { $0.ticket == ticket })
        else { return [] }
        queue[place].line = line
        var lines: [[UInt8]] = []
        while let first = queue.first, let ready = first.line {
            lines.append(ready)
            queue.removeFirst()
        }
        self.waiting[connection] = queue.isEmpty ? nil : queue
        return lines
    }

    /// The connection is gone: what waited for it is dropped.
    mutating func closed(_ connection: ConnectionID) {
        self.waiting.removeValue(forKey: connection)
    }
}
