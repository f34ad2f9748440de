import CLibUV
import Foundation

/// The sd_notify protocol without libsystemd: one datagram per state change to the Unix socket named by
/// `$NOTIFY_SOCKET` (systemd sets it for `Type=notify` units). A path starting with `@` is an abstract socket
/// (the `@` becomes a NUL byte), as in sd_notify(3). Without the variable every call does nothing.
///
/// The daemon sends `READY=1` once the control socket listens and the configuration is applied, and
/// `STOPPING=1` when it begins to stop (Docs/Deployment.md).
///
/// Threading: any thread (each call opens, sends and closes its own socket). A send that fails is reported to
/// the caller and changes nothing else: systemd then times the start out, which is its own signal.
struct SystemdNotifier: Sendable {
    /// The socket path as given; nil when there is none.
    let path: String?

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let value = environment["NOTIFY_SOCKET"] ?? ""
        self.path = value.isEmpty ? nil : value
    }

    /// Sends `state` (for example `READY=1`). Returns nil when sent or when there is no socket to send to, else
    /// why not.
    @discardableResult
    func notify(_ state: String) -> String? {
        guard let path = self.path else { return nil }
        guard path.hasPrefix("/") || path.hasPrefix("@") else {
            return "NOTIFY_SOCKET \(path) is neither an absolute path nor an abstract name (@...)"
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return "NOTIFY_SOCKET \(path) is longer than \(capacity - 1) bytes" }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return "cannot create a datagram socket: \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        // An abstract address's length counts its bytes exactly (no terminating NUL).
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                message.withUnsafeBytes {
                    sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), socketAddress, length)
                }
            }
        }
        guard sent == message.count else {
            return "cannot send \(state) to NOTIFY_SOCKET \(path): \(String(cString: strerror(errno)))"
        }
        return nil
    }
}
