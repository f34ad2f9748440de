// What is at the control socket's path before bind, and removing the socket file afterwards (K1): only a socket
// file is ever removed, and only when nobody accepts connections on it. Anything else at the path (a regular
// file, a directory, a symbolic link, a FIFO) is an error naming it, and nothing is deleted.

import CLibUV
import Glibc
import RunwayConfig
import RunwayCore

extension ControlSocketServer {
    /// Makes `self.path` free for bind: nothing there is fine; a stale socket (connect is refused: a daemon that
    /// did not stop cleanly) is removed; a live socket, anything that is not a socket, or a socket whose state
    /// cannot be told, is an error, and nothing is removed.
    ///
    /// Threading: any thread (the server calls it on the loop thread, before bind). Blocking: one lstat and one
    /// connect on a Unix socket, which answers at once.
    ///
    /// - Throws: `ControlSocketError` naming the path and what is there.
    func clearPathForBind() throws(ControlSocketError) {
        var info = stat()
        guard lstat(self.path, &info) == 0 else {
            let error = errno
            if error == ENOENT { return }
            throw ControlSocketError(path: self.path, step: "lstat", reason: String(cString: strerror(error)))
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw ControlSocketError(
                path: self.path,
                step: "",
                reason: "\(describeFileType(mode: UInt32(info.st_mode))) is in the way, and only a stale socket is "
                    + "ever removed, so nothing was deleted: move it, or choose another ControlSocket (or --socket)"
            )
        }
        switch Self.connectStatus(at: self.path) {
        case 0:
            throw ControlSocketError(
                path: self.path,
                step: "bind",
                reason: "another daemon is already serving this socket"
            )
        case ECONNREFUSED:
            // Nobody accepts: a socket file left by a daemon that did not stop cleanly.
            guard unlink(self.path) == 0 || errno == ENOENT else {
                throw ControlSocketError(
                    path: self.path,
                    step: "removing the stale socket",
                    reason: String(cString: strerror(errno))
                )
            }
        case let error:
            throw ControlSocketError(
                path: self.path,
                step: "",
                reason: "a socket whose daemon cannot be probed (connect: \(String(cString: strerror(error)))), "
                    + "so it was left alone"
            )
        }
    }

    /// Removes the socket file at `path` if (and only if) it is a socket: never a file put there by someone else.
    /// For the daemon's exit, after the loop has stopped. Any thread; returns whether a socket was removed.
    @discardableResult
    package static func removeSocketFile(at path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return false }
        return unlink(path) == 0
    }

    /// 0 when a process accepts connections at `path`, else the errno of the connect: ECONNREFUSED for a socket
    /// nobody listens on, ENOENT for nothing there. A blocking connect on a Unix socket answers at once.
    static func connectStatus(at path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { _ = Glibc.close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (offset, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[offset] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        return status == 0 ? 0 : errno
    }
}
