// Listening on the control socket's path (K1): bind, mode 0600 before listen, stale-socket replacement, and stop.

import CLibUV
import Glibc

extension ControlSocketServer {
    /// Binds, sets mode 0600 and listens. A stale socket file (nobody accepting on it) is replaced; a live one
    /// means another daemon serves it, and nothing is touched.
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
        if ControlSocketServer.someoneIsListening(at: self.path) {
            throw ControlSocketError(
                path: self.path,
                step: "bind",
                reason: "another daemon is already serving this socket"
            )
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
        _ = unlink(self.path)
        uv_close(pipeHandle(listener)) { handle in
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
}
