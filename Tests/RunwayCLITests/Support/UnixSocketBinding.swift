import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Binds the socket `fd` to the filesystem path `path` (at most 107 bytes, sun_path's room); bind(2)'s result,
/// with errno set when it is -1.
func bindUnixSocket(_ fd: Int32, to path: String) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (offset, byte) in path.utf8.enumerated() { raw[offset] = byte }
    }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
}

/// Binds a Unix socket at `path` and closes it without listening or unlinking: what a crashed daemon leaves, and
/// enough for `connect`'s permission checks.
func leaveStaleSocket(at path: String) throws {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw HarnessError(description: "socket: errno \(errno)") }
    defer { close(fd) }
    guard bindUnixSocket(fd, to: path) == 0 else {
        throw HarnessError(description: "bind \(path): \(String(cString: strerror(errno)))")
    }
}
