// The daemon's control socket at the I/O level (Behaviour.md K1): a Unix stream socket served by libuv (`uv_pipe_t`) on
// the scheduler's loop thread, cut into newline-terminated lines. It knows nothing of the protocol spoken on
// those lines (RunwayControl does); it enforces what must hold whatever a peer sends:
//
// - Mode 0600, set with chmod(2) after bind and before listen (so no peer can connect in between);
//   `uv_pipe_chmod` can only add permission bits, never make a socket owner-only.
// - SO_PEERCRED: a peer whose uid is neither the daemon's nor root is refused with one line and closed.
// - At most `Limits.maxClients` connections; one more is refused with one line and closed.
// - A line longer than `Limits.maxLineBytes` is reported once (`lineTooLong`), then discarded up to its newline;
//   the connection goes on with the next line. Memory per connection is bounded by that limit.
// - A peer that does not read its replies (or an event stream) is sent a final `slowReader` line and closed once
//   more than `Limits.maxQueuedWriteBytes` are waiting for it, so it can never make the daemon buffer without
//   bound; an event line sent to many subscribers is stored once (+Queue). A closing peer that does not read
//   its last lines is closed after `Limits.closeGraceMilliseconds` (+Closing).
// - A peer that has hung up no longer counts against `Limits.maxClients` when a newcomer needs its place.
// - Nothing a peer sends can trap or block the loop: every failure closes that one connection.
//
// This file holds the server's types and state; its jobs live beside it in ControlSocketServer+*.swift:
// +Listening (bind, chmod, listen, stop), +Path (what may be at the path: only a stale socket is replaced),
// +Accepting (peer checks, reading lines), +Sending (replies, slow readers, closing a connection), +Queue (what
// waits for a peer), +Closing (the close grace, hung-up peers), +Connection (one accepted peer, the libuv casts)
// and +Error.

import CLibUV
import Glibc
import RunwayCore
import RunwayLoop

/// A line-based Unix socket server on an `EventLoopThread` (K1).
///
/// Threading: loop thread only (every method checks). Events are delivered synchronously on the loop thread
/// and their handler may call `send`, `finish` or `stop` re-entrantly.
///
/// Sendability: `@unchecked Sendable` is safe because every stored mutable property is touched only on the loop
/// thread (each entry point calls `assertOnLoop()`); the object is shared only so that loop-thread closures
/// sent from other threads can reach it.
package final class ControlSocketServer: @unchecked Sendable {
    package typealias ConnectionID = UInt64

    package struct Limits: Sendable {
        /// Longest request line, without its newline. 64 KiB.
        package var maxLineBytes = 65_536
        /// Most connections served at once; more are refused. `ControlClientLimit`, default 64.
        package var maxClients = 64
        /// Most bytes of replies and events waiting for one connection: a line sent while more wait is not
        /// queued, and the connection is sent a final `slowReader` line and closed. A line is otherwise queued
        /// whole, so a connection holds at most this plus its largest line. `ControlQueueByteLimit`, 4 MiB.
        package var maxQueuedWriteBytes = 4 << 20
        /// How long a connection being closed (after a refusal, `finish` or a slow-reader drop) may take to read
        /// its last lines before it is closed without them. 10 s, checked once a second. Such a connection holds
        /// at most one write chunk (64 KiB) and its last line; at most `maxClients` of them wait at once.
        package var closeGraceMilliseconds: UInt64 = 10_000

        package init(maxClients: Int = 64, maxQueuedWriteBytes: Int = 4 << 20) {
            precondition(maxClients >= 1, "maxClients must be at least 1, got \(maxClients)")
            precondition(maxQueuedWriteBytes >= 1, "maxQueuedWriteBytes must be at least 1, got \(maxQueuedWriteBytes)")
            self.maxClients = maxClients
            self.maxQueuedWriteBytes = maxQueuedWriteBytes
        }
    }

    /// Why a connection was refused before any of its lines was read, or dropped: its last line says so.
    package enum Refusal: Sendable {
        case peerNotAllowed(uid: UInt32, daemonUID: UInt32)
        case peerUnknown(errno: Int32)
        case tooManyClients(limit: Int)
        /// More than `limit` bytes were waiting for the peer when another line was sent (`maxQueuedWriteBytes`).
        case slowReader(limit: Int)
    }

    package enum Event: Sendable {
        /// One complete line, without its newline (and without a trailing carriage return).
        case line(ConnectionID, [UInt8])
        /// A line exceeded `maxLineBytes`; the rest of it up to its newline is discarded.
        case lineTooLong(ConnectionID, limit: Int)
        /// The connection is gone (peer closed, error, `finish`, slow reader). No event for it follows.
        case closed(ConnectionID)
    }

    package let path: String
    package let limits: Limits
    let loop: EventLoopThread
    // The state below is internal only so that the extensions in the ControlSocketServer+*.swift files can
    // reach it; nothing outside those files touches it, and only on the loop thread.
    let refusalLine: @Sendable (Refusal) -> [UInt8]
    let onEvent: @Sendable (Event) -> Void
    let daemonUID = UInt32(getuid())
    var listener: UnsafeMutablePointer<uv_pipe_t>?
    /// True from a successful bind until the listener closes: only then is the file at `path` ours to remove.
    var ownsSocketFile = false
    /// The clients: served connections, neither closed nor shutting down.
    var connections: [ConnectionID: Connection] = [:]
    /// Connections shutting down (refused, finished, slow readers): no longer clients, closed within the grace.
    var lingering: [ConnectionID: Connection] = [:]
    /// Closes lingering connections past their grace; made at the first one, while the server runs.
    var lingerTimer: UnsafeMutablePointer<uv_timer_t>?
    var nextID: ConnectionID = 1
    /// libuv reads into this one buffer; each read is consumed before the next allocation.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 1)

    /// - Parameters:
    ///   - loop: The loop to serve on (the scheduler's).
    ///   - path: The socket's absolute path; at most 107 bytes.
    ///   - limits: Line, client and queue bounds.
    ///   - refusalLine: The line (with its newline) sent to a refused peer before it is closed.
    ///   - onEvent: Called on the loop thread for every line, over-long line and closed connection.
    package init(
        loop: EventLoopThread,
        path: String,
        limits: Limits = Limits(),
        refusalLine: @escaping @Sendable (Refusal) -> [UInt8],
        onEvent: @escaping @Sendable (Event) -> Void
    ) {
        self.loop = loop
        self.path = path
        self.limits = limits
        self.refusalLine = refusalLine
        self.onEvent = onEvent
    }

    deinit {
        self.readBuffer.deallocate()
    }

    func assertOnLoop(_ function: StaticString = #function) {
        precondition(
            self.loop.inEventLoop,
            "ControlSocketServer.\(function) called off the loop thread of '\(self.loop.name)'"
        )
    }

    /// The number of connections being served (refused, finished and dropped ones are not counted).
    package var clientCount: Int {
        self.assertOnLoop()
        return self.connections.count
    }

    static func owner(of data: UnsafeMutableRawPointer?) -> ControlSocketServer {
        guard let data else { preconditionFailure("control socket handle without its server in data") }
        return Unmanaged<ControlSocketServer>.fromOpaque(data).takeUnretainedValue()
    }
}
