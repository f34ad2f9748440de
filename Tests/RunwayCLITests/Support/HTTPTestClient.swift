import Foundation

// A raw TCP client for the metrics endpoint tests: writes the request bytes as given and reads the answer until
// the server closes (every request here says `Connection: close`, or is refused). No HTTP library: the test
// controls every byte it sends and sees every byte it gets.

struct HTTPAnswer: CustomStringConvertible {
    var raw: String

    /// `200` from `HTTP/1.1 200 OK`; 0 when nothing came.
    var status: Int {
        let first = self.raw.split(separator: "\r\n", maxSplits: 1).first ?? ""
        let parts = first.split(separator: " ")
        return parts.count > 1 ? Int(parts[1]) ?? 0 : 0
    }

    var headers: String { self.raw.components(separatedBy: "\r\n\r\n").first ?? "" }

    var body: String {
        guard let range = self.raw.range(of: "\r\n\r\n") else { return "" }
        return String(self.raw[range.upperBound...])
    }

    var description: String { self.raw }
}

/// A connected TCP socket to 127.0.0.1:`port`, with a 20 s receive timeout so that a test never hangs; from
/// `source` (another loopback address, such as 127.0.0.2) when given.
final class TCPConnection {
    let fd: Int32

    init(port: Int, from source: String? = nil) throws {
        self.fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard self.fd >= 0 else { throw HarnessError(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(self.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(self.fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                close(self.fd)
                throw HarnessError(description: "bind to \(source): errno \(errno)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(self.fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(self.fd)
            throw HarnessError(description: "connect to 127.0.0.1:\(port): errno \(errno)")
        }
    }

    deinit { close(self.fd) }

    /// Sends all of `text`; false when the connection failed first (reset by the server, or closed).
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(self.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Everything the server sends until it closes (or the receive timeout).
    func readToEnd() -> HTTPAnswer {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data += chunk[..<count]
        }
        return HTTPAnswer(raw: String(decoding: data, as: UTF8.self))
    }
}

/// One request on a fresh connection; `request` is sent as is.
func httpExchange(port: Int, _ request: String) throws -> HTTPAnswer {
    let connection = try TCPConnection(port: port)
    connection.send(request)
    return connection.readToEnd()
}

func httpGet(port: Int, _ path: String = "/metrics") throws -> HTTPAnswer {
    try httpExchange(port: port, "GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
}

/// The port of `http://HOST:PORT/metrics` in the daemon's startup lines.
func metricsPort(_ daemon: DaemonProcess) throws -> Int {
    var port: Int?
    try waitUntil("the daemon's metrics line\n\(daemon.output)") {
        guard let line = daemon.output.split(separator: "\n").first(where: { $0.contains("metrics: http://") }),
            let url = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
            let portText = url.split(separator: ":").last?.split(separator: "/").first
        else { return false }
        port = Int(portText)
        return port != nil
    }
    return port ?? 0
}

/// The value of the sample `name{labels}` (exactly as written) in an exposition text, or nil.
func sample(_ text: String, _ series: String) -> Double? {
    for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}
