// Sending to a control-socket peer and closing it (K1): the bound on queued bytes (a peer over it is sent a final
// `slowReader` line and closed), one chunk written at a time, the graceful close after queued writes
// (uv_shutdown) bounded by `Limits.closeGraceMilliseconds`, and the one `closed` event per served connection.

import CLibUV

extension ControlSocketServer {
    /// Queues `bytes` (one or more whole lines) for the connection. When more than `maxQueuedWriteBytes` are
    /// already waiting for it, the line is not queued: the peer is a slow reader and is closed after a final
    /// `slowReader` line (`dropSlowReader`). A line is otherwise queued whole whatever its size, so a reply
    /// larger than the limit (a big `status`) still reaches a peer that reads. A closed, closing or unknown
    /// connection is ignored.
    ///
    /// Threading: loop thread only.
    package func send(_ bytes: [UInt8], to id: ConnectionID) {
        self.assertOnLoop()
        guard let connection = self.connections[id], !connection.isClosing, !connection.isShuttingDown else { return }
        guard connection.outgoing.queuedBytes <= self.limits.maxQueuedWriteBytes else {
            self.dropSlowReader(connection)
            return
        }
        self.write(bytes, on: connection)
    }

    /// Closes the connection once what was sent to it has been written (or `closeGraceMilliseconds` have passed).
    ///
    /// Threading: loop thread only.
    package func finish(_ id: ConnectionID) {
        self.assertOnLoop()
        guard let connection = self.connections[id], !connection.isClosing else { return }
        self.shutdownAndClose(connection)
    }

    /// Bytes waiting for the connection (0 once it is gone). For tests and metrics.
    ///
    /// Threading: loop thread only.
    package func queuedBytes(for id: ConnectionID) -> Int {
        self.assertOnLoop()
        return self.connections[id]?.outgoing.queuedBytes ?? 0
    }

    func write(_ bytes: [UInt8], on connection: Connection) {
        connection.outgoing.append(bytes)
        if !connection.outgoing.isWriting { self.writeNextChunk(on: connection) }
    }

    /// Drops what the peer has not been handed yet, queues the final `slowReader` line naming the limit, and
    /// closes the connection once that line is written (within `closeGraceMilliseconds`). Counted as closed at once.
    func dropSlowReader(_ connection: Connection) {
        connection.outgoing.dropPending()
        connection.outgoing.append(self.refusalLine(.slowReader(limit: self.limits.maxQueuedWriteBytes)))
        if !connection.outgoing.isWriting { self.writeNextChunk(on: connection) }
        self.shutdownAndClose(connection)
    }

    /// Hands the next chunk to libuv, or, when nothing is left and the connection is shutting down, shuts it.
    private func writeNextChunk(on connection: Connection) {
        guard !connection.isClosing else { return }
        guard let chunk = connection.outgoing.takeChunk() else {
            if connection.isShuttingDown { self.shutdownWritten(connection) }
            return
        }
        let request = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
        request.pointee.data = chunk.baseAddress
        var buffer = uv_buf_init(chunk.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(chunk.count))
        let status = uv_write(request, pipeStream(connection.pipe), &buffer, 1) { request, status in
            guard let request else { return }
            request.pointee.data?.deallocate()
            let handle = request.pointee.handle
            request.deallocate()
            // libuv calls back (with UV_ECANCELED) for writes a close abandoned, before the close callback that
            // releases the connection; its `server` is nil by then.
            guard let handle else { return }
            let connection = Connection.owner(of: handle.pointee.data)
            connection.outgoing.chunkWritten()
            guard let server = connection.server else { return }
            if status != 0 { server.close(connection) } else { server.writeNextChunk(on: connection) }
        }
        if status != 0 {
            chunk.deallocate()
            request.deallocate()
            connection.outgoing.chunkWritten()
            self.close(connection)
        }
    }

    /// Stops reading and stops counting the connection as a client (its `closed` event is reported now); lets
    /// what is queued be written, then shuts it down and closes it. A peer that has not read it all within
    /// `closeGraceMilliseconds` is closed anyway, so it cannot keep the daemon holding its queue.
    func shutdownAndClose(_ connection: Connection) {
        guard !connection.isShuttingDown, !connection.isClosing else { return }
        connection.isShuttingDown = true
        _ = uv_read_stop(pipeStream(connection.pipe))
        self.linger(connection)
        if !connection.outgoing.isWriting { self.writeNextChunk(on: connection) }
    }

    /// Everything queued has been written: uv_shutdown, then close.
    private func shutdownWritten(_ connection: Connection) {
        let request = UnsafeMutablePointer<uv_shutdown_t>.allocate(capacity: 1)
        let status = uv_shutdown(request, pipeStream(connection.pipe)) { request, _ in
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

    /// Closes at once; reports `closed` if the connection was being served and has not been reported yet.
    func close(_ connection: Connection) {
        guard !connection.isClosing else { return }
        connection.isClosing = true
        let wasServed = self.connections.removeValue(forKey: connection.id) != nil
        self.lingering.removeValue(forKey: connection.id)
        connection.server = nil
        uv_close(pipeHandle(connection.pipe)) { handle in
            guard let handle else { return }
            Unmanaged<Connection>.fromOpaque(handle.pointee.data).release()
            UnsafeMutableRawPointer(handle).deallocate()
        }
        if wasServed { self.onEvent(.closed(connection.id)) }
    }
}
