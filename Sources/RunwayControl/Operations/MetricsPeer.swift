import Foundation
import NIOCore

/// Who a metrics connection comes from, for `MetricsPeerConnectionLimit`: its IP address, and for a connection
/// over the loopback interface the uid that owns the client's socket instead. Every local user connects from
/// 127.0.0.1, so the address alone would put another user's connections and the scraper's under one limit; and
/// every local user may bind any address of 127.0.0.0/8 (or `::1`), so counting per address and uid would give one
/// user a limit per address. A loopback peer whose uid is known is therefore that uid, whatever its address.
///
/// The uid is read from `/proc/net/tcp` (or `tcp6`): the line whose local address is the client's and whose
/// remote address is the daemon's names the owner of the client's socket (the same table `ss -tnpe` reads). It is
/// read once per loopback connection on the endpoint's own thread, never on the scheduler's loop; when it cannot be
/// found (another network namespace, `/proc` hidden) the key is the address alone.
///
/// Threading: any thread; a value.
struct MetricsPeer: Hashable, Sendable, CustomStringConvertible {
    var address: String
    var uid: UInt32?

    /// What a loopback peer whose uid is known has as its address: every loopback address is one.
    static let loopback = "loopback"

    var description: String { self.uid.map { "\(self.address) (uid \($0))" } ?? self.address }

    /// The peer of a connection from `remote` to `local`.
    init(remote: SocketAddress?, local: SocketAddress?) {
        self.address = remote?.ipAddress ?? "unknown"
        guard let remote, let local, Self.isLoopback(remote) else { return }
        self.uid = Self.socketOwner(client: remote, server: local)
        if self.uid != nil { self.address = Self.loopback }
    }

    init(address: String, uid: UInt32?) {
        self.address = address
        self.uid = uid
    }

    static func isLoopback(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            // 127.0.0.0/8: the first byte of the address in network order.
            return withUnsafeBytes(of: v4.address.sin_addr) { $0[0] } == 127
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
            return bytes == Array(repeating: 0, count: 15) + [1]
                || (Array(bytes[..<12]) == mappedPrefix && bytes[12] == 127)
        default:
            return false
        }
    }

    /// The uid owning the socket whose local end is `client` and remote end is `server`, from the kernel's TCP
    /// table; nil when no such line is found or the client's socket is already closed (TIME_WAIT).
    static func socketOwner(client: SocketAddress, server: SocketAddress) -> UInt32? {
        guard let (table, clientText) = Self.procEntry(client), let (_, serverText) = Self.procEntry(server) else {
            return nil
        }
        guard let text = Self.readWhole(table) else { return nil }
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, fields[1] == clientText, fields[2] == serverText else { continue }
            // TIME_WAIT (06): the client has closed already, and the kernel shows no owner (uid 0) for it.
            return fields[3] == "06" ? nil : UInt32(fields[7])
        }
        return nil
    }

    /// The table and the `ADDRESS:PORT` text of `address` as `/proc/net/tcp` prints it: each 32-bit word of the
    /// address as the host reads it, then the port, in upper-case hexadecimal. A v4-mapped IPv6 address is looked
    /// up as the IPv4 one (the client's socket is an IPv4 socket).
    private static func procEntry(_ address: SocketAddress) -> (String, String)? {
        switch address {
        case .v4(let v4):
            let word = v4.address.sin_addr.s_addr
            return ("/proc/net/tcp", Self.hex(word) + ":" + Self.hex16(UInt16(bigEndian: v4.address.sin_port)))
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            let port = Self.hex16(UInt16(bigEndian: v6.address.sin6_port))
            let words = stride(from: 0, to: 16, by: 4).map { index in
                bytes[index..<index + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            }
            if bytes[..<12].elementsEqual(Array(repeating: 0, count: 10) + [0xFF, 0xFF]) {
                return ("/proc/net/tcp", Self.hex(words[3]) + ":" + port)
            }
            return ("/proc/net/tcp6", words.map(Self.hex).joined() + ":" + port)
        default:
            return nil
        }
    }

    /// A `/proc` file read to its end (its size reads as 0, so it is read until `read` returns 0); at most 64 MiB.
    private static func readWhole(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < 64 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ word: UInt32) -> String {
        let digits = String(word, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    private static func hex16(_ port: UInt16) -> String {
        let digits = String(port, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
