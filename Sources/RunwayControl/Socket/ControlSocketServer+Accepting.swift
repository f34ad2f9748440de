// Accepting a peer on the control socket (K1): the SO_PEERCRED and client-count checks that refuse it with one
// line, then reading its bytes into lines of at most `Limits.maxLineBytes`.

import CLibUV
import Glibc

extension ControlSocketServer {
    /// The listener's callback: accepts one peer, refuses it or starts reading it. Loop thread (libuv callback).
    func connectionArrived(status: Int32) {
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
        guard uv_accept(pipeStream(listener), pipeStream(pipe)) == 0 else {
            self.close(connection)
            return
        }
        var fd: uv_os_fd_t = -1
        let peerUID = uv_fileno(pipeHandle(pipe), &fd) == 0 ? runway_peer_uid(fd) : -Int64(EBADF)
        let refusal: Refusal?
        if peerUID < 0 {
            refusal = .peerUnknown(errno: Int32(-peerUID))
        } else if UInt32(peerUID) != self.daemonUID && peerUID != 0 {
            refusal = .peerNotAllowed(uid: UInt32(peerUID), daemonUID: self.daemonUID)
        } else if self.connections.count >= self.limits.maxClients && self.stillFullAfterClosingHungUpPeers() {
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
            pipeStream(pipe),
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

    /// True when every place is still taken after the peers that hung up were counted out.
    private func stillFullAfterClosingHungUpPeers() -> Bool {
        self.closeHungUpPeers()
        return self.connections.count >= self.limits.maxClients
    }

    /// The read callback: frames what arrived into lines and reports them. Loop thread (libuv callback).
    func bytesRead(_ count: Int, on connection: Connection) {
        guard count >= 0 else {
            // UV_EOF or a read error: the peer is gone (a half-written line is dropped).
            self.close(connection)
            return
        }
        guard count > 0, let base = self.readBuffer.baseAddress else { return }
        for frame in connection.framer.append(UnsafeRawBufferPointer(start: base, count: count)) {
            // A handler may close or shut the connection (a refusal, a slow reader): nothing more is read then.
            guard !connection.isClosing, !connection.isShuttingDown else { return }
            switch frame {
            case .line(let line): self.onEvent(.line(connection.id, line))
            case .tooLong: self.onEvent(.lineTooLong(connection.id, limit: self.limits.maxLineBytes))
            }
        }
    }
}
