import CLibUV
import Foundation

/// The sd_notify protocol without libsystemd: one datagram per state change to the Unix socket named by
/// `$NOTIFY_SOCKET` (systemd sets it for `Type=notify` units). A path starting with `@` is an abstract socket
/// (the `@` becomes a NUL byte), as in sd_notify(3). Without the variable every call does nothing.
///
/// Every send is non-blocking (`SOCK_NONBLOCK`, `MSG_DONTWAIT`): a receiver whose queue is full makes it return
/// `.queueFull` at once instead of holding the caller (`SystemdNotifications` retries from a loop timer).
///
/// Threading: any thread (each call opens, sends and closes its own socket).
struct SystemdNotifier: Sendable {
    /// What one send did.
    enum Outcome: Equatable, Sendable {
        /// Sent, or nothing to send to (no `NOTIFY_SOCKET`).
        case sent
        /// The receiver's queue is full (EAGAIN): nothing was sent; a later try may succeed.
        case queueFull
        /// Cannot be sent, and trying again will not help; the text says why, naming the socket.
        case failed(String)
    }

    /// The socket path as given; nil when there is none.
    let path: String?

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let value = environment["NOTIFY_SOCKET"] ?? ""
        self.path = value.isEmpty ? nil : value
    }

    /// Sends `state` (for example `READY=1`) without waiting.
    func send(_ state: String) -> Outcome {
        guard let path = self.path else { return .sent }
        guard path.hasPrefix("/") || path.hasPrefix("@") else {
            return .failed("NOTIFY_SOCKET \(path) is neither an absolute path nor an abstract name (@...)")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            return .failed("NOTIFY_SOCKET \(path) is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let fd = socket(AF_UNIX, type, 0)
        guard fd >= 0 else { return .failed("cannot create a datagram socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        // An abstract address's length counts its bytes exactly (no terminating NUL).
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                message.withUnsafeBytes {
                    sendto(
                        fd,
                        $0.baseAddress,
                        $0.count,
                        Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT),
                        socketAddress,
                        length
                    )
                }
            }
        }
        if sent == message.count { return .sent }
        if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK { return .queueFull }
        return .failed("cannot send \(state) to NOTIFY_SOCKET \(path): \(String(cString: strerror(errno)))")
    }

    /// The interval at which to send `WATCHDOG=1`: half of `$WATCHDOG_USEC` (at least 1 ms) when that is set and
    /// `$WATCHDOG_PID` is unset or this process, as sd_watchdog_enabled(3) says; nil otherwise. A value that is
    /// not a positive integer is returned as a problem.
    static func watchdogInterval(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        pid: Int32 = getpid()
    ) -> Result<UInt64?, WatchdogSettingError> {
        guard let text = environment["WATCHDOG_USEC"], !text.isEmpty else { return .success(nil) }
        if let owner = environment["WATCHDOG_PID"], !owner.isEmpty, owner != String(pid) { return .success(nil) }
        guard let microseconds = UInt64(text), microseconds > 0 else {
            return .failure(WatchdogSettingError(value: text))
        }
        return .success(max(1, microseconds / 2_000))
    }
}

/// `$WATCHDOG_USEC` is not a positive number of microseconds.
struct WatchdogSettingError: Error, CustomStringConvertible {
    var value: String

    var description: String {
        "WATCHDOG_USEC \(self.value) is not a positive number of microseconds: no WATCHDOG=1 is sent"
    }
}
