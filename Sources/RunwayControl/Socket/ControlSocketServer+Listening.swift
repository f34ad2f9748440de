// Listening on the control socket's path (K1): bind, mode 0600 before listen, and stop. What may be at the path
// before bind (only a stale socket is replaced) is in +Path.

import CLibUV
import Glibc

extension ControlSocketServer {
    /// Binds, sets mode 0600 and listens. A stale socket file (nobody accepting on it) is replaced; a live one
    /// means another daemon serves it, and anything else at the path (a regular file, a directory, a symbolic
    /// link, a FIFO) is an error naming it: nothing but a stale socket is ever removed (`clearPathForBind`).
    ///
    /// Threading: loop thread only.
    ///
    /// - Throws: `ControlSocketError` naming the path and the failing step.
    package func start() throws(ControlSocketError) {
        self.assertOnLoop()
        precondition(self.listener == nil, "ControlSocketServer.start() called twice for \(self.path)")
        guard self.path.utf8.count <= 107, self.path.hasPrefix("/") else {
            throw ControlSocketError(path: self.path, step: "path", reason: "must be absolute and at most 107 bytes")
        }
        try self.clearPathForBind()
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
        self.ownsSocketFile = true
        // Before listen: no peer can connect until then, so the socket is never reachable with wider bits.
        guard chmod(self.path, 0o600) == 0 else { throw fail("chmod 0600", -errno) }
        status = uv_listen(pipeStream(pipe), 128) { server, status in
            guard let server else { return }
            ControlSocketServer.owner(of: server.pointee.data).connectionArrived(status: status)
        }
        guard status == 0 else { throw fail("listen", status) }
    }

    /// Stops listening, closes every connection and removes the socket file. Idempotent.
    ///
    /// Threading: loop thread only.
    package func stop() {
        self.assertOnLoop()
        guard self.listener != nil else { return }
        self.closeListener()
        for connection in Array(self.connections.values) { self.close(connection) }
        self.closeLingerers()
    }

    func closeListener() {
        guard let listener = self.listener else { return }
        self.listener = nil
        if self.ownsSocketFile {
            self.ownsSocketFile = false
            Self.removeSocketFile(at: self.path)
        }
        uv_close(pipeHandle(listener)) { handle in
            guard let handle else { return }
            Unmanaged<ControlSocketServer>.fromOpaque(handle.pointee.data).release()
            UnsafeMutableRawPointer(handle).deallocate()
        }
    }
}
