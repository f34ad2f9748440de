import Foundation
@_spi(Processes) import Runway
import RunwayConfig
import Testing

@testable import RunwayControl

/// `GET /healthz` and `GET /readyz` of the metrics listener in this process, over real HTTP, on a real scheduler
/// whose loop the test blocks (Docs/Operations.md, "Health probes").
@Suite(.serialized) struct HealthProbeListenerTests {
    struct Answer: CustomStringConvertible {
        var status: Int
        var body: String
        var description: String { "\(self.status) \(self.body)" }
    }

    /// One `GET path` with `Connection: close` to 127.0.0.1:`port`, read until the server closes (20 s at most).
    static func httpGet(port: Int, _ path: String) throws -> Answer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data += chunk[..<count]
        }
        let text = String(decoding: data, as: UTF8.self)
        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return Answer(status: status, body: body)
    }

    /// The listener of this process on a real scheduler: `/readyz` follows the phase the daemon sets, and both
    /// probes fail while the loop does not turn.
    @Test func theProbesFailWhileTheLoopIsStuckAndRecoverWhenItTurns() async throws {
        let scheduler = try RunwayScheduler()
        let loop = scheduler.loopThread
        let probes = DaemonProbes(waiterLimit: 4) { loop.execute($0) }
        let server = try await MetricsServer.start(
            address: MetricsAddress(host: "127.0.0.1", port: 0),
            settings: OperationsSettings(),
            probes: probes,
            render: { Array("# no metrics\n".utf8) }
        )
        let port = try #require(server.boundAddress?.port)

        // Before the daemon says it is ready, and once it says it stops.
        var answer = try Self.httpGet(port: port, "/readyz")
        #expect(answer.status == 503, "\(answer)")
        #expect(answer.body == "not ready: starting, the configuration is being applied\n", "\(answer)")
        #expect(try Self.httpGet(port: port, "/healthz").status == 200)
        probes.setPhase(.ready)
        #expect(try Self.httpGet(port: port, "/readyz").status == 200)

        // The loop blocked: the probe waits 2 s for it, then 503; a probe after that is answered 503 at once.
        let release = DispatchSemaphore(value: 0)
        #expect(loop.execute { release.wait() })
        answer = try Self.httpGet(port: port, "/healthz")
        #expect(answer.status == 503, "\(answer)")
        #expect(answer.body == "the event loop did not answer within 2 s\n", "\(answer)")
        #expect(try Self.httpGet(port: port, "/readyz").status == 503)
        release.signal()
        try waitUntil("/healthz 200 once the loop turns") {
            try Self.httpGet(port: port, "/healthz").status == 200
        }
        #expect(try Self.httpGet(port: port, "/readyz").status == 200)

        probes.setPhase(.stopping)
        answer = try Self.httpGet(port: port, "/readyz")
        #expect(answer.status == 503 && answer.body.hasPrefix("not ready: stopping"), "\(answer)")
        await scheduler.shutdown()
        answer = try Self.httpGet(port: port, "/healthz")
        #expect(answer.status == 503 && answer.body == "the event loop has stopped\n", "\(answer)")
        await server.stop()
    }
}
