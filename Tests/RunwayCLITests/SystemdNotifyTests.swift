import Foundation
import Testing

/// `Type=notify` (Docs/Deployment.md): `runway run` sends `READY=1` to `$NOTIFY_SOCKET` once it serves, and
/// `STOPPING=1` when it begins to stop, to a real Unix datagram socket, by path or abstract name (`@...`).
@Suite(.serialized) struct SystemdNotifyTests {
    @Test(arguments: [false, true])
    func readyThenStoppingArriveOnTheNotifySocket(abstract: Bool) throws {
        let name = "runway-notify-\(UUID().uuidString.prefix(8))"
        let listener = try DatagramListener(address: abstract ? "@" + name : "/tmp/\(name).sock")
        defer { listener.close() }
        let daemon = try DaemonProcess(environment: ["NOTIFY_SOCKET": listener.address])
        defer { daemon.close() }
        let ready = listener.receive()
        #expect(ready == "READY=1", "\(daemon.output)")
        // READY comes once the control socket answers.
        #expect(try daemon.cli("status").status == 0)
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
        #expect(listener.receive() == "STOPPING=1", "\(daemon.output)")
        #expect(!daemon.output.contains("warning: "), "\(daemon.output)")
    }
}

/// A bound Unix datagram socket, as systemd's notify socket is; abstract when the address starts with `@`.
final class DatagramListener {
    let address: String
    let fd: Int32

    init(address: String) throws {
        self.address = address
        self.fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(self.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var unixAddress = sockaddr_un()
        unixAddress.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(address.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &unixAddress.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let bound = withUnsafePointer(to: &unixAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(self.fd, $0, length) }
        }
        guard bound == 0 else { throw HarnessError(description: "bind \(address): errno \(errno)") }
    }

    /// The next datagram as text; nil after the 20 s timeout.
    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
        return count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
    }

    func close() {
        Glibc.close(self.fd)
        if self.address.hasPrefix("/") { unlink(self.address) }
    }
}
