import CLibUV
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking client of the control socket, for the CLI and tests. Not thread-safe: one user at a time.
///
/// It trusts nothing for being at the socket's path: right after connect, before a byte is
/// sent, it reads the listening process's uid with SO_PEERCRED and refuses unless that uid is its own or root's,
/// so that another user who took the path first can neither read its commands nor forge its replies.
package final class ControlClient {
    private let fd: Int32
    private let path: String
    private let replyTimeoutSeconds: Int?
    /// Where `path` came from (a flag, a variable, a configuration file), named with the path when no reply came.
    package var pathOrigin: String?
    private var buffered: [UInt8] = []
    /// How many bytes at the start of `buffered` are known to hold no newline.
    private var scanned = 0
    /// Longest reply line accepted: 256 MiB. A `status` reply is at most about apps x (1 KiB + TaskLimitPerApp x
    /// (80 + 6 x TaskNameByteLimit)) bytes (a name of control characters is escaped six-fold), 1.6 MB per app at
    /// the default limits, so this admits 160 apps that all hold every task they may with the worst names
    /// (Docs/Decisions/0064-a-status-reply-is-one-line-bounded-by-the-limits.md).
    package static let maxReplyBytes = 256 << 20
    /// How long connecting waits for a daemon whose queue of connections is full when the reply has no bound.
    package static let connectTimeoutSecondsDefault = 30

    /// Connects to the daemon's socket.
    ///
    /// - Throws: `ControlClientError`: `unreachable` when no daemon listens, `noReply` when one listens but did not
    ///   accept in time, `permissionDenied` when the socket is not ours or the process listening runs as another
    ///   user (nothing was sent), `badPath` when the path cannot be a socket address.
    ///
    /// - Parameters:
    ///   - path: The daemon's control socket.
    ///   - replyTimeoutSeconds: How long connecting waits for the daemon to accept, and `readLine` for data,
    ///     before they throw `noReply`; nil lets `readLine` wait for ever (the `events` stream) and connecting
    ///     `connectTimeoutSecondsDefault`. Default 30 s, so that a daemon that never answers cannot hang a command.
    package init(path: String, replyTimeoutSeconds: Int? = 30) throws(ControlClientError) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw ControlClientError(.unreachable, "socket() failed: \(String(cString: strerror(errno)))")
        }
        if let seconds = replyTimeoutSeconds {
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        self.replyTimeoutSeconds = replyTimeoutSeconds
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path) - 1
        guard path.utf8.count <= capacity else {
            _ = close(fd)
            throw ControlClientError(.badPath, "control socket path \(path) is longer than \(capacity) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (offset, byte) in path.utf8.enumerated() { raw[offset] = byte }
        }
        // A daemon whose listen backlog is full (busy, or stopped with SIGSTOP) makes a blocking connect wait until
        // it accepts: for ever. A Unix socket's connect waits at most SO_SNDTIMEO, then fails with EAGAIN, so the
        // wait gets the reply's bound (30 s when the reply has none). Sends after it wait as before, unbounded.
        let connectTimeoutSeconds = replyTimeoutSeconds ?? Self.connectTimeoutSecondsDefault
        var connectTimeout = timeval(tv_sec: connectTimeoutSeconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &connectTimeout, socklen_t(MemoryLayout<timeval>.size))
        var status: Int32
        repeat {
            status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        } while status != 0 && errno == EINTR
        var unbounded = timeval(tv_sec: 0, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &unbounded, socklen_t(MemoryLayout<timeval>.size))
        guard status == 0 else {
            let error = errno
            _ = close(fd)
            switch error {
            case EAGAIN:
                throw ControlClientError(
                    .noReply,
                    "the daemon on \(path) accepted no connection within \(connectTimeoutSeconds) s (its queue of "
                        + "connections is full: it is busy or stopped)"
                )
            case ENOENT, ECONNREFUSED:
                throw ControlClientError(.unreachable, Self.nothingListening(at: path))
            case EACCES, EPERM:
                throw ControlClientError(.permissionDenied, Self.permissionDenied(at: path))
            default:
                throw ControlClientError(.unreachable, "cannot connect to \(path): \(String(cString: strerror(error)))")
            }
        }
        if let refusal = Self.untrustedPeer(fd: fd, path: path) {
            _ = close(fd)
            throw refusal
        }
        self.fd = fd
        self.path = path
    }

    /// Why the process at the other end of `fd` must not be talked to, or nil when it runs as this process's
    /// real uid or as root (SO_PEERCRED: the credentials it had when it called listen).
    private static func untrustedPeer(fd: Int32, path: String) -> ControlClientError? {
        let peer = runway_peer_uid(fd)
        let own = UInt32(getuid())
        let expected = own == 0 ? "uid 0 (root)" : "uid \(own) (yours) or 0 (root)"
        guard peer >= 0 else {
            return ControlClientError(
                .permissionDenied,
                "refusing to talk to \(path): the credentials of the process listening there cannot be read "
                    + "(\(String(cString: strerror(Int32(-peer))))); expected \(expected); nothing was sent"
            )
        }
        guard peer == Int64(own) || peer == 0 else {
            return ControlClientError(
                .permissionDenied,
                "refusing to talk to \(path): the process listening there runs as uid \(peer), expected "
                    + "\(expected); another user may have taken the socket path. Nothing was sent"
            )
        }
        return nil
    }

    deinit {
        _ = close(self.fd)
    }

    /// Sends one request and reads its reply line.
    package func request(_ request: ControlRequest) throws(ControlClientError) -> ControlReply {
        do throws(ControlClientError) {
            try self.send(ControlProtocol.encodedLine(request))
        } catch {
            // A daemon that refuses a connection (peer check, too many clients) writes one line and closes: the
            // write may fail, and the refusal is still there to read.
            guard let line = try? self.readLine(), !line.isEmpty else { throw error }
            return try Self.decode(ControlReply.self, line)
        }
        guard let line = try self.readLine() else {
            throw ControlClientError(.closed, "the daemon closed the connection without replying")
        }
        return try Self.decode(ControlReply.self, line)
    }

    /// Writes raw bytes (tests send malformed input with it).
    package func send(_ bytes: [UInt8]) throws(ControlClientError) {
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a daemon that closed the connection is an EPIPE error here, not a SIGPIPE.
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(self.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                let error = errno
                if error == EINTR { continue }
                throw ControlClientError(
                    error == EPIPE || error == ECONNRESET ? .closed : .noReply,
                    "write to the daemon failed: \(String(cString: strerror(error)))"
                )
            }
            offset += written
        }
    }

    /// The next line from the daemon without its newline, or nil when it closed the connection.
    package func readLine() throws(ControlClientError) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            // Only the bytes read since the last look are searched: a reply line of many megabytes arrives in
            // many reads, and searching it whole after each would take quadratic time.
            if let newline = self.buffered[self.scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(self.buffered[..<newline])
                self.buffered.removeSubrange(...newline)
                self.scanned = 0
                return line
            }
            self.scanned = self.buffered.count
            guard self.buffered.count <= Self.maxReplyBytes else {
                throw ControlClientError(.badReply, "a reply line is longer than \(Self.maxReplyBytes) bytes")
            }
            let count = chunk.withUnsafeMutableBytes { read(self.fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    throw ControlClientError(
                        .noReply,
                        "no reply from the daemon on \(self.path) within \(self.replyTimeoutSeconds ?? 0) s"
                            + (self.pathOrigin.map { ". The path is \($0)" } ?? "")
                    )
                }
                if errno == ECONNRESET { return nil }
                throw ControlClientError(
                    .noReply,
                    "read from the daemon failed: \(String(cString: strerror(errno)))"
                )
            }
            if count == 0 { return nil }
            self.buffered.append(contentsOf: chunk[..<count])
        }
    }

    package static func decode<T: Decodable>(_ type: T.Type, _ line: [UInt8]) throws(ControlClientError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(line))
        } catch {
            throw ControlClientError(
                .badReply,
                "unreadable reply from the daemon: \(String(decoding: line.prefix(200), as: UTF8.self))"
            )
        }
    }
}

/// Why the client could not talk to the daemon.
package struct ControlClientError: Error, CustomStringConvertible {
    package enum Kind: Sendable {
        /// Nothing listens on the socket (no daemon), or the socket could not be made.
        case unreachable
        /// The socket is not this user's (EACCES, EPERM).
        case permissionDenied
        /// The path cannot be a Unix socket address (too long): a usage error.
        case badPath
        /// A daemon was reached, but the exchange failed: the write failed or it did not reply in time.
        case noReply
        /// A daemon was reached, but it has closed the connection: a write found it closed (EPIPE, ECONNRESET),
        /// or it closed without replying. A daemon that stopped ends a `status --watch` this way.
        case closed
        /// A daemon replied with something that is not a reply line (or longer than `maxReplyBytes`).
        case badReply
    }

    package var kind: Kind
    package var message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    package var description: String { self.message }
}
