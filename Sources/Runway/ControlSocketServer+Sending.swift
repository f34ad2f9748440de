// Sending to a control-socket peer and closing it (K1): the slow-reader bound on queued bytes, the graceful
// close after queued writes (uv_shutdown), and the one `closed` event per served connection.

import CLibUV

extension ControlSocketServer {
    /// Queues `bytes` for the connection. A connection with more than `maxQueuedWriteBytes` waiting is closed
    /// (a slow reader); a closed or unknown connection is ignored.
    ///
    /// Threading: loop thread only.
    package func send(_ bytes: [UInt8], to id: ConnectionID) {
        self.assertOnLoop()
        guard let connection = self.connections[id], !connection.isClosing else { return }
        let queued = uv_stream_get_write_queue_size(pipeStream(connection.pipe))
        guard queued + bytes.count <= self.limits.maxQueuedWriteBytes else {
            self.close(connection)
            return
        }
        self.write(bytes, on: connection)
    }

    /// Closes the connection once what was sent to it has been written.
    ///
    /// Threading: loop thread only.
    package func finish(_ id: ConnectionID) {
        self.assertOnLoop()
        guard let connection = self.connections[id], !connection.isClosing else { return }
        self.shutdownAndClose(connection)
    }

    func write(_ bytes: [UInt8], on connection: Connection) {
        guard !bytes.isEmpty else { return }
        if writeCopy(of: bytes, to: pipeStream(connection.pipe)) != 0 {
            self.close(connection)
        }
    }

    /// Stops reading, lets queued writes finish (uv_shutdown), then closes.
    func shutdownAndClose(_ connection: Connection) {
        guard !connection.isShuttingDown, !connection.isClosing else { return }
        connection.isShuttingDown = true
        _ = uv_read_stop(pipeStream(connection.pipe))
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

    /// Closes at once; reports `closed` if the connection was being served (not for a refused one).
    func close(_ connection: Connection) {
        guard !connection.isClosing else { return }
        connection.isClosing = true
        let wasServed = self.connections.removeValue(forKey: connection.id) != nil
        connection.server = nil
        uv_close(pipeHandle(connection.pipe)) { handle in
            guard let handle else { return }
            Unmanaged<Connection>.fromOpaque(handle.pointee.data).release()
            UnsafeMutableRawPointer(handle).deallocate()
        }
        if wasServed { self.onEvent(.closed(connection.id)) }
    }
}
