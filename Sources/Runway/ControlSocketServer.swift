// The daemon's control socket at the I/O level (SPEC K1): a Unix stream socket served by libuv (`uv_pipe_t`) on
// the scheduler's loop thread, cut into newline-terminated lines. It knows nothing of the protocol spoken on
// those lines (RunwayControl does); it enforces what must hold whatever a peer sends:
//
// - Mode 0600, set with chmod(2) after bind and before listen (so no peer can connect in between);
//   `uv_pipe_chmod` can only add permission bits, never make a socket owner-only.
// - SO_PEERCRED: a peer whose uid is neither the daemon's nor root is refused with one line and closed.
// - At most `Limits.maxClients` connections; one more is refused with one line and closed.
// - A line longer than `Limits.maxLineBytes` is reported once (`lineTooLong`), then discarded up to its newline;
//   the connection goes on with the next line. Memory per connection is bounded by that limit.
// - A peer that does not read its replies (or an event stream) is closed once `Limits.maxQueuedWriteBytes` are
//   waiting for it, so it can never make the daemon buffer without bound.
// - Nothing a peer sends can trap or block the loop: every failure closes that one connection.

import CLibUV
import Glibc
import RunwayCore

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
        /// Most connections served at once; more are refused.
        package var maxClients = 64
        /// Most reply bytes queued for one connection before it is closed as a slow reader.
        package var maxQueuedWriteBytes = 4 << 20

        package init() {}
    }

    /// Why a connection was refused before any of its lines was read.
    package enum Refusal: Sendable {
        case peerNotAllowed(uid: UInt32, daemonUID: UInt32)
        case peerUnknown(errno: Int32)
        case tooManyClients(limit: Int)
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
    private let refusalLine: @Sendable (Refusal) -> [UInt8]
    private let onEvent: @Sendable (Event) -> Void
    private let daemonUID = UInt32(getuid())
    private var listener: UnsafeMutablePointer<uv_pipe_t>?
    private var connections: [ConnectionID: Connection] = [:]
    private var nextID: ConnectionID = 1
    /// libuv reads into this one buffer; each read is consumed before the next allocation.
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 1)

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

    private func assertOnLoop(_ function: StaticString = #function) {
        precondition(self.loop.inEventLoop, "ControlSocketServer.\(function) called off the loop thread of '\(self.loop.name)'")
    }

    /// The number of connections being served (refused ones are not counted).
    package var clientCount: Int {
        self.assertOnLoop()
        return self.connections.count
    }

    // MARK: Listening

    /// Binds, sets mode 0600 and listens. A stale socket file (nobody accepting on it) is replaced; a live one
    /// means another daemon serves it, and nothing is touched.
    ///
    /// - Throws: `ControlSocketError` naming the path and the failing step.
    package func start() throws(ControlSocketError) {
        self.assertOnLoop()
        precondition(self.listener == nil, "ControlSocketServer.start() called twice for \(self.path)")
        guard self.path.utf8.count <= 107, self.path.hasPrefix("/") else {
            throw ControlSocketError(path: self.path, step: "path", reason: "must be absolute and at most 107 bytes")
        }
        if ControlSocketServer.someoneIsListening(at: self.path) {
            throw ControlSocketError(path: self.path, step: "bind", reason: "another daemon is already serving this socket")
        }
        _ = unlink(self.path)  // a stale file from a daemon that did not stop cleanly; ENOENT is fine
        let pipe = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
        var status = uv_pipe_init(self.loop.handles.loop, pipe, 0)
        guard status == 0 else {
            pipe.deallocate()
            throw ControlSocketError(path: self.path, step: "uv_pipe_init", status: status)
        }
        pipe.pointee.data = Unmanaged.passRetained(self).toOpaque()
        self.listener = pipe
        func fail(_ step: String, _ status: Int32) -> ControlSocketError {
            self.closeListener()
            return ControlSocketError(path: self.path, step: step, status: status)
        }
        status = uv_pipe_bind(pipe, self.path)
        guard status == 0 else { throw fail("bind", status) }
        // Before listen: no peer can connect until then, so the socket is never reachable with wider bits.
        guard chmod(self.path, 0o600) == 0 else { throw fail("chmod 0600", -errno) }
        status = uv_listen(stream(pipe), 128) { server, status in
            guard let server else { return }
            ControlSocketServer.owner(of: server.pointee.data).connectionArrived(status: status)
        }
        guard status == 0 else { throw fail("listen", status) }
    }

    /// Stops listening, closes every connection and removes the socket file. Idempotent.
    package func stop() {
        self.assertOnLoop()
        guard self.listener != nil else { return }
        self.closeListener()
        for connection in Array(self.connections.values) { self.close(connection) }
    }

    private func closeListener() {
        guard let listener = self.listener else { return }
        self.listener = nil
        _ = unlink(self.path)
        uv_close(handle(listener)) { handle in
            guard let handle else { return }
            Unmanaged<ControlSocketServer>.fromOpaque(handle.pointee.data).release()
            UnsafeMutableRawPointer(handle).deallocate()
        }
    }

    /// True when a process accepts connections at `path` (a blocking connect on a Unix socket answers at once).
    static func someoneIsListening(at path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { _ = Glibc.close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (offset, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[offset] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) == 0 }
        }
    }

    // MARK: Connections

    private func connectionArrived(status: Int32) {
        guard status == 0, let listener = self.listener else { return }
        let pipe = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
        guard uv_pipe_init(self.loop.handles.loop, pipe, 0) == 0 else {
            pipe.deallocate()
            return
        }
        let connection = Connection(id: self.nextID, pipe: pipe, maxLineBytes: self.limits.maxLineBytes)
        connection.server = self
        self.nextID += 1
        pipe.pointee.data = Unmanaged.passRetained(connection).toOpaque()
        guard uv_accept(stream(listener), stream(pipe)) == 0 else {
            self.close(connection)
            return
        }
        var fd: uv_os_fd_t = -1
        let peerUID = uv_fileno(handle(pipe), &fd) == 0 ? runway_peer_uid(fd) : -Int64(EBADF)
        let refusal: Refusal?
        if peerUID < 0 {
            refusal = .peerUnknown(errno: Int32(-peerUID))
        } else if UInt32(peerUID) != self.daemonUID && peerUID != 0 {
            refusal = .peerNotAllowed(uid: UInt32(peerUID), daemonUID: self.daemonUID)
        } else if self.connections.count >= self.limits.maxClients {
            refusal = .tooManyClients(limit: self.limits.maxClients)
        } else {
            refusal = nil
        }
        if let refusal {
            // Not counted as a client: one line, then closed once it is written.
            self.write(self.refusalLine(refusal), on: connection)
            self.shutdownAndClose(connection)
            return
        }
        self.connections[connection.id] = connection
        let started = uv_read_start(
            stream(pipe),
            { handle, _, buffer in
                guard let handle, let buffer else { return }
                let connection = Connection.owner(of: handle.pointee.data)
                let storage = connection.server?.readBuffer
                buffer.pointee = uv_buf_init(
                    storage?.baseAddress?.assumingMemoryBound(to: CChar.self),
                    UInt32(storage?.count ?? 0)
                )
            },
            { stream, count, buffer in
                guard let stream else { return }
                let connection = Connection.owner(of: stream.pointee.data)
                connection.server?.bytesRead(count, on: connection)
            }
        )
        if started != 0 { self.close(connection) }
    }

    private func bytesRead(_ count: Int, on connection: Connection) {
        guard count >= 0 else {
            // UV_EOF or a read error: the peer is gone (a half-written line is dropped).
            self.close(connection)
            return
        }
        guard count > 0, let base = self.readBuffer.baseAddress else { return }
        for frame in connection.framer.append(UnsafeRawBufferPointer(start: base, count: count)) {
            // A handler may close the connection (a refusal, a slow reader): nothing more is read from it then.
            guard !connection.isClosing else { return }
            switch frame {
            case .line(let line): self.onEvent(.line(connection.id, line))
            case .tooLong: self.onEvent(.lineTooLong(connection.id, limit: self.limits.maxLineBytes))
            }
        }
    }

    /// Queues `bytes` for the connection. A connection with more than `maxQueuedWriteBytes` waiting is closed
    /// (a slow reader); a closed or unknown connection is ignored.
    package func send(_ bytes: [UInt8], to id: ConnectionID) {
        self.assertOnLoop()
        guard let connection = self.connections[id], !connection.isClosing else { return }
        let queued = uv_stream_get_write_queue_size(stream(connection.pipe))
        guard queued + bytes.count <= self.limits.maxQueuedWriteBytes else {
            self.close(connection)
            return
        }
        self.write(bytes, on: connection)
    }

    /// Closes the connection once what was sent to it has been written.
    package func finish(_ id: ConnectionID) {
        self.assertOnLoop()
        guard let connection = self.connections[id], !connection.isClosing else { return }
        self.shutdownAndClose(connection)
    }

    private func write(_ bytes: [UInt8], on connection: Connection) {
        guard !bytes.isEmpty else { return }
        if writeCopy(of: bytes, to: stream(connection.pipe)) != 0 {
            self.close(connection)
        }
    }

    /// Stops reading, lets queued writes finish (uv_shutdown), then closes.
    private func shutdownAndClose(_ connection: Connection) {
        guard !connection.isShuttingDown, !connection.isClosing else { return }
        connection.isShuttingDown = true
        _ = uv_read_stop(stream(connection.pipe))
        let request = UnsafeMutablePointer<uv_shutdown_t>.allocate(capacity: 1)
        let status = uv_shutdown(request, stream(connection.pipe)) { request, _ in
            guard let request else { return }
            if let handle = request.pointee.handle {
                let connection = Connection.owner(of: handle.pointee.data)
                connection.server?.close(connection)
            }
            request.deallocate()
        }
        if status != 0 {
            request.deallocate()
            self.close(connection)
        }
    }

    private func close(_ connection: Connection) {
        guard !connection.isClosing else { return }
        connection.isClosing = true
        let wasServed = self.connections.removeValue(forKey: connection.id) != nil
        connection.server = nil
        uv_close(handle(connection.pipe)) { handle in
            guard let handle else { return }
            Unmanaged<Connection>.fromOpaque(handle.pointee.data).release()
            UnsafeMutableRawPointer(handle).deallocate()
        }
        if wasServed { self.onEvent(.closed(connection.id)) }
    }

    static func owner(of data: UnsafeMutableRawPointer?) -> ControlSocketServer {
        guard let data else { preconditionFailure("control socket handle without its server in data") }
        return Unmanaged<ControlSocketServer>.fromOpaque(data).takeUnretainedValue()
    }
}

/// One accepted peer. Its pipe's `data` holds a retained reference, released by the close callback.
private final class Connection {
    let id: ControlSocketServer.ConnectionID
    let pipe: UnsafeMutablePointer<uv_pipe_t>
    /// Set from accept until the close starts; nil afterwards, so callbacks that race a close do nothing.
    var server: ControlSocketServer?
    /// Splits the byte stream into lines of at most `maxLineBytes`; an over-long line is reported once and
    /// skipped to its newline (the same framing as the app protocol's).
    var framer: LineFramer
    var isShuttingDown = false
    var isClosing = false

    init(id: ControlSocketServer.ConnectionID, pipe: UnsafeMutablePointer<uv_pipe_t>, maxLineBytes: Int) {
        self.id = id
        self.pipe = pipe
        self.framer = LineFramer(maximumLineBytes: maxLineBytes)
    }

    static func owner(of data: UnsafeMutableRawPointer?) -> Connection {
        guard let data else { preconditionFailure("control connection handle without its connection in data") }
        return Unmanaged<Connection>.fromOpaque(data).takeUnretainedValue()
    }
}

/// The control socket could not be set up: which path, which step, and why.
package struct ControlSocketError: Error, CustomStringConvertible {
    package var path: String
    package var step: String
    package var reason: String

    package init(path: String, step: String, reason: String) {
        self.path = path
        self.step = step
        self.reason = reason
    }

    init(path: String, step: String, status: Int32) {
        self.init(path: path, step: step, reason: String(cString: uv_strerror(status)))
    }

    package var description: String { "control socket \(self.path): \(self.step) failed: \(self.reason)" }
}

private func stream(_ pipe: UnsafeMutablePointer<uv_pipe_t>) -> UnsafeMutablePointer<uv_stream_t> {
    UnsafeMutableRawPointer(pipe).assumingMemoryBound(to: uv_stream_t.self)
}

private func handle(_ pipe: UnsafeMutablePointer<uv_pipe_t>) -> UnsafeMutablePointer<uv_handle_t> {
    UnsafeMutableRawPointer(pipe).assumingMemoryBound(to: uv_handle_t.self)
}
