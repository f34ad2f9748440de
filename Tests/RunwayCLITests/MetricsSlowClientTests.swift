import Foundation
import RunwayControl
import Testing

/// A client that holds a metrics connection by sending its request a few bytes at a time (slowloris) is closed
/// `MetricsIdleTimeout` after the connection opened, however often it sends: a
/// timeout on reads alone let `MetricsConnectionLimit` such clients shut Prometheus out for good. Real daemon,
/// real sockets.
@Suite("Metrics endpoint: slow clients", .serialized)
struct MetricsSlowClientTests {
    /// True when the server has closed `connection` (a read returns end of file), without waiting.
    static func closedByServer(_ connection: TCPConnection) -> Bool {
        var byte: UInt8 = 0
        return recv(connection.fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }

    @Test func aRequestSentTooSlowlyIsClosedAndItsSlotFreed() throws {
        let daemon = try DaemonProcess(
            settings: "<key>MetricsAddress</key><string>127.0.0.1:0</string>"
                + "<key>MetricsConnectionLimit</key><integer>1</integer>"
                + "<key>MetricsIdleTimeout</key><real>0.5</real>"
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        let slow = try TCPConnection(port: port)
        slow.send("GET /metrics HTTP/1.1\r\nHost: x\r\n")
        // A header line every 0.1 s: never 0.5 s without a byte. Up to 20 times the timeout.
        var closed = false
        for index in 0..<100 where !closed {
            slow.send("X-Drip-\(index): b\r\n")
            usleep(100_000)
            closed = Self.closedByServer(slow)
        }
        #expect(closed, "the daemon kept a connection that never completed its request")
        try waitUntil("the slot to be free for a scrape") { (try? httpGet(port: port).status) == 200 }
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    @Test func aClientThatCompletesRequestsKeepsItsConnection() throws {
        let daemon = try DaemonProcess(
            settings: "<key>MetricsAddress</key><string>127.0.0.1:0</string>"
                + "<key>MetricsIdleTimeout</key><real>2</real>"
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        let client = try TCPConnection(port: port)
        // Three requests on one connection, each answered in full before the next (keep-alive).
        for _ in 0..<3 {
            client.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            var answer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while !String(decoding: answer, as: UTF8.self).contains("runway_metrics_scrapes_total ") {
                let count = chunk.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
                try #require(count > 0, "the connection closed after \(answer.count) bytes")
                answer += chunk[..<count]
            }
            #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK"))
        }
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }
}
