// When control-socket connections stop counting (K1): a connection being closed after its last lines is no longer
// a client and is closed for good after `Limits.closeGraceMilliseconds` (at most `maxClients` of them wait); a
// peer that has hung up is counted out as soon as a newcomer needs its place, even if its end-of-file has not been
// read yet.

import CLibUV
import Glibc

extension ControlSocketServer {
    /// Moves a connection that is shutting down out of the clients (reporting `closed` if it was served) and
    /// gives it until `closeGraceMilliseconds` from now to be written and closed.
    func linger(_ connection: Connection) {
        connection.closeDeadline = uv_now(self.loop.handles.loop) + self.limits.closeGraceMilliseconds
        let wasServed = self.connections.removeValue(forKey: connection.id) != nil
        self.lingering[connection.id] = connection
        // Lingering connections are bounded too: beyond `maxClients`, the one nearest its deadline goes now.
        if self.lingering.count > self.limits.maxClients,
            let oldest = self.lingering.values.min(by: { $0.closeDeadline < $1.closeDeadline })
        {
            self.close(oldest)
        }
        self.startLingerTimer()
        if wasServed { self.onEvent(.closed(connection.id)) }
    }

    /// Runs once a second while connections linger.
    private func startLingerTimer() {
        let timer: UnsafeMutablePointer<uv_timer_t>
        if let existing = self.lingerTimer {
            timer = existing
        } else {
            timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
            let status = uv_timer_init(self.loop.handles.loop, timer)
            precondition(status == 0, "uv_timer_init cannot fail on a valid loop: \(status)")
            timer.pointee.data = Unmanaged.passRetained(self).toOpaque()
            self.lingerTimer = timer
        }
        guard uv_is_active(runway_timer_as_handle(timer)) == 0 else { return }
        uv_timer_start(
            timer,
            { timer in
                guard let timer else { return }
                ControlSocketServer.owner(of: timer.pointee.data).closeLingerersPastGrace()
            },
            1_000,
            1_000
        )
    }

    private func closeLingerersPastGrace() {
        let now = uv_now(self.loop.handles.loop)
        for connection in Array(self.lingering.values) where connection.closeDeadline <= now {
            self.close(connection)
        }
        if self.lingering.isEmpty, let timer = self.lingerTimer { uv_timer_stop(timer) }
    }

    /// Closes every lingering connection and the timer. Part of `stop()`.
    func closeLingerers() {
        for connection in Array(self.lingering.values) { self.close(connection) }
        guard let timer = self.lingerTimer else { return }
        self.lingerTimer = nil
        uv_close(runway_timer_as_handle(timer)) { handle in
            guard let handle else { return }
            Unmanaged<ControlSocketServer>.fromOpaque(handle.pointee.data).release()
            UnsafeMutableRawPointer(handle).deallocate()
        }
    }

    /// Closes the served connections whose peer has gone (`POLLHUP`: closed, or shut down both ways), after
    /// reading and handling what it sent before it went. Called when a newcomer finds every place taken: the
    /// loop may accept it in the same turn as, or before, it reads those peers' end-of-file, and a peer that
    /// has closed must not be counted against a client that connected after it (K1).
    func closeHungUpPeers() {
        for connection in Array(self.connections.values) where !connection.isClosing && !connection.isShuttingDown {
            var fd: uv_os_fd_t = -1
            guard uv_fileno(pipeHandle(connection.pipe), &fd) == 0 else { continue }
            var probe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&probe, 1, 0) == 1, probe.revents & Int16(POLLHUP) != 0 else { continue }
            self.readUntilEnd(connection, fd: fd)
        }
    }

    /// Reads a hung-up peer's remaining bytes as libuv would have, then closes it at its end-of-file.
    private func readUntilEnd(_ connection: Connection, fd: Int32) {
        while !connection.isClosing && !connection.isShuttingDown {
            let count = recv(fd, self.readBuffer.baseAddress, self.readBuffer.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                self.bytesRead(count, on: connection)
            } else if count == 0 || errno != EINTR {
                // End of file, or an error (EAGAIN included: a hung-up peer has nothing more to send).
                self.close(connection)
            }
        }
    }
}
