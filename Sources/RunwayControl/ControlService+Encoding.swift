import Dispatch
@_spi(Processes) import Runway
import RunwayLocking

// Replies that list apps (`status`) are encoded off the loop thread: a page of 1,000 rows is about 250 KB of
// JSON, which held back every deadline due while the loop encoded it. The loop takes the page's snapshot (in
// slices, `ControlService+StatusSlices.swift`), a serial queue encodes it, and the loop sends the line when it
// comes back; `ReplyOrder` keeps each connection's replies in the order of its requests.

extension ControlService {
    /// The most `status` replies of one connection being encoded at once: each holds its page's snapshot until
    /// sent, so a client that sends requests without reading replies cannot make the daemon hold more. One more
    /// is refused (`tooManyRequests`); `runway status` asks for one page at a time.
    static let statusEncodingLimit = 4

    /// Encodes status replies one at a time, in the order asked, on one thread other than the loop's: on a
    /// small machine one encoding at a time leaves the other CPUs to the loop and the apps.
    static let encodingQueue = DispatchQueue(label: "runway.control.encoding")

    /// Where status replies were encoded: on the loop thread or off it (tests count them).
    struct EncodingCounts: Hashable, Sendable {
        var onLoop = 0
        var offLoop = 0
    }

    /// Sends `reply` to `connection` after the replies asked for before it: a reply that lists apps is encoded
    /// off the loop thread, any other at once. Loop thread.
    func deliver(_ reply: ControlReply, to connection: ControlSocketServer.ConnectionID) {
        guard reply.apps != nil else {
            self.deliverLine(ControlProtocol.encodedLine(reply), to: connection)
            return
        }
        guard self.replyOrder.encoding(for: connection) < Self.statusEncodingLimit else {
            self.deliverLine(ControlProtocol.encodedLine(Self.tooManyStatusRequests(id: reply.id)), to: connection)
            return
        }
        self.encodeOffLoop(reply, ticket: self.replyOrder.reserve(for: connection), for: connection)
    }

    /// The refusal of a status request beyond `statusEncodingLimit` on one connection.
    static func tooManyStatusRequests(id: Int?) -> ControlReply {
        .failure(
            "tooManyRequests",
            "\(Self.statusEncodingLimit) status replies of this connection are still being taken or encoded, the "
                + "limit (statusEncodingLimit); read a reply before asking for more",
            id: id
        )
    }

    /// Encodes `reply` on `encodingQueue` and sends it in `ticket`'s place of `connection`'s order. Loop thread.
    func encodeOffLoop(_ reply: ControlReply, ticket: UInt64, for connection: ControlSocketServer.ConnectionID) {
        let loop = self.scheduler.loopThread
        Self.encodingQueue.async { [weak self] in
            let line = ControlProtocol.encodedLine(reply)
            let onLoop = loop.inEventLoop
            self?.encodingCounts.withLock { counts in
                if onLoop { counts.onLoop += 1 } else { counts.offLoop += 1 }
            }
            // Refused only once the loop is closing, when nothing more is sent anyway.
            _ = loop.execute { [weak self] in self?.encoded(line, ticket: ticket, for: connection) }
        }
    }

    /// Sends an encoded line in its connection's order. Loop thread.
    func deliverLine(_ line: [UInt8], to connection: ControlSocketServer.ConnectionID) {
        for ready in self.replyOrder.ready(line, for: connection) { self.server?.send(ready, to: connection) }
    }

    /// The reply that took `ticket` is ready: sends it and those waiting behind it. Loop thread.
    func encoded(_ line: [UInt8], ticket: UInt64, for connection: ControlSocketServer.ConnectionID) {
        for ready in self.replyOrder.encoded(line, ticket: ticket, for: connection) {
            self.server?.send(ready, to: connection)
        }
    }
}
