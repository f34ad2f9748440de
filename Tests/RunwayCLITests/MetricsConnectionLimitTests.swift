import Foundation
import RunwayControl
import Testing

/// The metrics endpoint's limits as a client meets them (Docs/Operations.md): refusals are read as HTTP answers
/// (503, 431), never as a connection reset, and connections held open (from another address, or from the
/// scraper's own) do not keep a scrape out. Real daemon, real TCP sockets, raw HTTP.
@Suite(.serialized) struct MetricsConnectionLimitTests {
    /// True when the server has closed `connection` (end of file) within `seconds`.
    static func closedByServer(_ connection: TCPConnection, within seconds: Double) -> Bool {
        var descriptor = pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(seconds * 1_000)) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(connection.fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }

    @Test func anOversizedRequestIsAnswered431NotReset() throws {
        let daemon = try DaemonProcess(
            settings: "<key>MetricsAddress</key><string>127.0.0.1:0</string>"
                + "<key>MetricsRequestByteLimit</key><integer>1024</integer>"
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        // A client that sends its whole request before it reads (as curl does): 2 KB of headers, the daemon
        // answers, then the rest. A reset would fail the second send, and the client would never read the 431.
        let connection = try TCPConnection(port: port)
        let header = "X-Big: " + String(repeating: "x", count: 1_000) + "\r\n"
        #expect(connection.send("GET /metrics HTTP/1.1\r\nHost: x\r\n" + header + header))
        usleep(200_000)
        let delivered = connection.send(String(repeating: header, count: 64) + "\r\n")
        #expect(delivered, "the daemon reset the connection")
        let answer = connection.readToEnd()
        #expect(answer.raw.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "\(answer)")
        #expect(answer.body.contains("more than 1024 bytes (MetricsRequestByteLimit)"), "\(answer)")
        #expect(try httpGet(port: port).status == 200)
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    @Test func aConnectionOverTheLimitIsAnswered503NotReset() throws {
        let daemon = try DaemonProcess(
            settings: "<key>MetricsAddress</key><string>127.0.0.1:0</string>"
                + "<key>MetricsConnectionLimit</key><integer>1</integer>"
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        // A connection just opened is not closed for a newcomer: the next one is refused.
        let held = try TCPConnection(port: port)
        let refused = try TCPConnection(port: port)
        // The request head, and its body once the daemon has answered: bytes it must drain, not reset on.
        #expect(refused.send("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 65536\r\n\r\n"))
        usleep(200_000)
        let delivered = refused.send(String(repeating: "y", count: 65_536))
        #expect(delivered, "the daemon reset the connection")
        let answer = refused.readToEnd()
        #expect(answer.raw.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"), "\(answer)")
        #expect(answer.headers.contains("Retry-After: 1"), "\(answer)")
        #expect(answer.body.contains("at most 1 at once (MetricsConnectionLimit)"), "\(answer)")
        _ = held
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    @Test func oneLocalUserHoldsAtMostThePeerLimitWhateverLoopbackAddressesItUses() throws {
        // The defaults: 16 connections, 8 per peer, idle ones closed after 10 s.
        let daemon = try DaemonProcess(settings: "<key>MetricsAddress</key><string>127.0.0.1:0</string>")
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        let held = try (0..<32).map { index in try TCPConnection(port: port, from: "127.0.0.\(2 + index % 4)") }
        // The ninth and later connections of this uid were refused, from whichever address, naming the limit.
        let refusal = held[8].readToEnd()
        #expect(refusal.status == 503, "\(refusal)")
        let text = "from loopback (uid \(geteuid())): the metrics endpoint serves at most 8 per peer at once"
        #expect(refusal.body.contains(text), "\(refusal)")
        #expect(refusal.body.contains("(MetricsPeerConnectionLimit)"), "\(refusal)")
        // The scraper is the same user: past their first second, its held connections give it a place.
        usleep(1_100_000)
        let answer = try httpGet(port: port)
        #expect(answer.status == 200, "\(answer)")
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    /// Run as user nobody: holds `per` connections from each of 127.0.0.2 ... 127.0.0.7, each replaced
    /// before it is 0.8 s old (so none is ever past its first second); prints `round` after each pass.
    static let loopbackFlood = """
        import socket, sys, time
        port, per = int(sys.argv[1]), int(sys.argv[2])
        held = []
        while True:
            now = time.time()
            for s, t in [c for c in held if now - c[1] > 0.8]:
                s.close()
            held = [c for c in held if now - c[1] <= 0.8]
            for source in ["127.0.0.%d" % n for n in range(2, 8)]:
                while sum(1 for s, t in held if s.getsockname()[0] == source) < per:
                    s = socket.socket()
                    s.bind((source, 0))
                    try:
                        s.connect(("127.0.0.1", port))
                    except OSError:
                        s.close()
                        break
                    held.append((s, time.time()))
            print("round", flush=True)
            time.sleep(0.02)
        """

    @Test(arguments: [16, 8])
    func aScrapeSucceedsWhileAnotherLocalUserHoldsEveryPlaceFromManyLoopbackAddresses(limit: Int) throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return }
        // 16: the flood's uid holds at most 8; 8: it can hold every place, all young, and still yields one.
        let daemon = try DaemonProcess(
            settings: "<key>MetricsAddress</key><string>127.0.0.1:0</string>"
                + "<key>MetricsConnectionLimit</key><integer>\(limit)</integer>"
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        let statuses = try Self.scrapes(
            port: port,
            duringFloodBy: ["/usr/bin/python3", "-c", Self.loopbackFlood, "\(port)", "8"],
            rounds: 3
        )
        #expect(statuses == [200: 20], "\(statuses)")
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    @Test func aScrapeSucceedsWhileAnotherLocalUserFloodsTheLoopbackAddress() throws {
        guard geteuid() == 0 else { return }  // Needs root to run the flood as another user.
        let daemon = try DaemonProcess(settings: "<key>MetricsAddress</key><string>127.0.0.1:0</string>")
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        // User nobody, from 127.0.0.1 as the scraper: 50 connections, closed and opened again without pause.
        let script =
            "while :; do for i in $(seq 10 59); do eval \"exec $i>&- $i<>/dev/tcp/127.0.0.1/\(port)\"; "
            + "done 2>/dev/null; echo round; done"
        let statuses = try Self.scrapes(port: port, duringFloodBy: ["/bin/bash", "-c", script], rounds: 2)
        #expect(statuses == [200: 20], "\(statuses)")
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    @Test func aScrapeTakesThePlaceOfTheOldestConnectionWaitingForARequest() throws {
        let daemon = try DaemonProcess(
            settings: "<key>MetricsAddress</key><string>127.0.0.1:0</string>"
                + "<key>MetricsConnectionLimit</key><integer>2</integer>"
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        // From the scraper's own address: one idle, one sending its request a byte now and then.
        let idle = try TCPConnection(port: port)
        usleep(10_000)
        let slow = try TCPConnection(port: port)
        slow.send("GET /metrics HTTP/1.1\r\n")
        // Past their first second, they no longer keep a newcomer out: each scrape closes the oldest.
        usleep(1_100_000)
        #expect(try httpGet(port: port).status == 200)
        #expect(Self.closedByServer(idle, within: 5), "the oldest connection was closed")
        #expect(!Self.closedByServer(slow, within: 0.1), "only the oldest")
        // A young connection fills the second place again: the next scrape closes the slow one, not it.
        let young = try TCPConnection(port: port)
        #expect(try httpGet(port: port).status == 200)
        #expect(Self.closedByServer(slow, within: 5), "the slow connection was closed")
        #expect(!Self.closedByServer(young, within: 0.1), "a connection in its first second stays")
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    /// Runs `command` as user nobody (it prints "round" after each pass of its flood), waits until it has done
    /// `rounds` passes, so every place it can take is taken again and again, scrapes 20 times, then ends it.
    ///
    /// - Returns: How many scrapes got each HTTP status.
    static func scrapes(port: Int, duringFloodBy command: [String], rounds: Int) throws -> [Int: Int] {
        let flood = Process()
        flood.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        flood.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups"] + command
        let output = Pipe()
        flood.standardOutput = output
        try flood.run()
        // Ended before the daemon: Foundation sees the daemon's exit only once every process it started since,
        // which may hold a copy of the descriptor it watches, has ended too.
        defer { kill(flood.processIdentifier, SIGKILL) }
        var printed = ""
        try waitUntil("\(rounds) rounds of the flood") {
            var descriptor = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 10) == 1 {
                var chunk = [UInt8](repeating: 0, count: 256)
                let count = read(descriptor.fd, &chunk, chunk.count)
                if count > 0 { printed += String(decoding: chunk[..<count], as: UTF8.self) }
            }
            return printed.components(separatedBy: "round").count > rounds
        }
        var statuses: [Int: Int] = [:]
        for _ in 0..<20 { statuses[try httpGet(port: port).status, default: 0] += 1 }
        kill(flood.processIdentifier, SIGKILL)
        try waitUntil("the flood to end") { !flood.isRunning }
        return statuses
    }
}
