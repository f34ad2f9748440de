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

    /// A process app that sleeps until it is terminated.
    static let sleeper =
        "<key>ProgramArguments</key><array><string>/bin/sleep</string><string>1000</string></array>"

    @Test func aNotifySocketWhoseQueueIsFullNeverHoldsTheDaemonOrItsStop() throws {
        let listener = try DatagramListener(address: "/tmp/runway-notify-\(UUID().uuidString.prefix(8)).sock")
        defer { listener.close() }
        try listener.fillQueue()
        let app = "com.example.sleeper"
        let daemon = try DaemonProcess(apps: [app: Self.sleeper], environment: ["NOTIFY_SOCKET": listener.address])
        defer { daemon.close() }
        #expect(try daemon.cli("launch", app).status == 0, "\(daemon.output)")
        let pid = try #require(try daemon.status(app).pid)
        // READY=1 is tried for 5 s, then dropped with one warning naming the socket; the daemon serves meanwhile.
        try waitUntil("the dropped READY=1\n\(daemon.output)") {
            daemon.output.contains(
                "warning: READY=1 not sent to NOTIFY_SOCKET \(listener.address): its queue stayed full"
            )
        }
        #expect(try daemon.cli("status").status == 0)
        let stopping = ContinuousClock.now
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
        #expect(ContinuousClock.now - stopping < .seconds(2), "\(daemon.output)")
        #expect(kill(pid, 0) != 0, "the app's process \(pid) is gone")
        #expect(listener.drain().allSatisfy { $0 == DatagramListener.filler }, "nothing sent once dropped")
    }

    @Test func aNotificationThatFoundTheQueueFullArrivesOnceTheQueueDrains() throws {
        let listener = try DatagramListener(address: "/tmp/runway-notify-\(UUID().uuidString.prefix(8)).sock")
        defer { listener.close() }
        try listener.fillQueue()
        let daemon = try DaemonProcess(environment: ["NOTIFY_SOCKET": listener.address])
        defer { daemon.close() }
        #expect(try daemon.cli("status").status == 0)
        // The queue is read after the daemon served: READY=1 was kept and is sent by a later try.
        var sent = listener.drain().filter { $0 != DatagramListener.filler }
        if sent.isEmpty, let next = listener.receive() { sent.append(next) }
        #expect(sent == ["READY=1"], "\(daemon.output)")
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
        #expect(listener.receive() == "STOPPING=1", "\(daemon.output)")
        #expect(!daemon.output.contains("warning: "), "\(daemon.output)")
    }

    @Test func watchdogPingsArriveEveryHalfWatchdogInterval() throws {
        let listener = try DatagramListener(address: "/tmp/runway-notify-\(UUID().uuidString.prefix(8)).sock")
        defer { listener.close() }
        // WatchdogSec=0.2 s: a WATCHDOG=1 every 100 ms while the loop turns.
        let daemon = try DaemonProcess(environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "200000"])
        defer { daemon.close() }
        var pings: [ContinuousClock.Instant] = []
        let end = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < end {
            guard let message = listener.receive(timeoutMilliseconds: 1_000) else { break }
            if message == "WATCHDOG=1" { pings.append(ContinuousClock.now) }
        }
        // 20 pings in 2 s; generous bounds for a loaded machine, but none would arrive without the watchdog.
        #expect((14...22).contains(pings.count), "\(pings.count) pings in 2 s\n\(daemon.output)")
        let gaps = zip(pings.dropFirst(), pings).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 < .milliseconds(190) }, "\(gaps)")
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    @Test func noWatchdogPingsForAnotherProcessesWatchdog() throws {
        let listener = try DatagramListener(address: "/tmp/runway-notify-\(UUID().uuidString.prefix(8)).sock")
        defer { listener.close() }
        let daemon = try DaemonProcess(
            environment: ["NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"]
        )
        defer { daemon.close() }
        #expect(listener.receive() == "READY=1", "\(daemon.output)")
        #expect(listener.receive(timeoutMilliseconds: 500) == nil)
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    /// `KEY=value` entries of `pid`'s environment as its exec set them.
    static func environment(of pid: Int32) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return [:] }
        var result: [String: String] = [:]
        for entry in data.split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        return result
    }

    @Test func systemdsVariablesReachNoAppUnlessItsOwnEnvironmentVariablesSetThem() throws {
        let listener = try DatagramListener(address: "/tmp/runway-notify-\(UUID().uuidString.prefix(8)).sock")
        defer { listener.close() }
        let systemd = [
            "NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1",
            "LISTEN_FDS": "2", "LISTEN_PID": "1", "LISTEN_FDNAMES": "a:b",
        ]
        let plain = "com.example.plain"
        let own = "com.example.own"
        let ownKeys =
            Self.sleeper
            + "<key>EnvironmentVariables</key><dict><key>NOTIFY_SOCKET</key><string>/run/app.sock</string></dict>"
        let daemon = try DaemonProcess(apps: [plain: Self.sleeper, own: ownKeys], environment: systemd)
        defer { daemon.close() }
        #expect(listener.receive() == "READY=1", "\(daemon.output)")
        #expect(try daemon.cli("launch", plain).status == 0, "\(daemon.output)")
        #expect(try daemon.cli("launch", own).status == 0, "\(daemon.output)")
        let plainPID = try #require(try daemon.status(plain).pid)
        let ownPID = try #require(try daemon.status(own).pid)
        // The launch returns at the exec's point of no return; the kernel sets up the new environment a moment later.
        try waitUntil("the apps' environments") {
            Self.environment(of: plainPID)["RUNWAY_APP"] == plain && Self.environment(of: ownPID)["RUNWAY_APP"] == own
        }
        let plainEnvironment = Self.environment(of: plainPID)
        for key in systemd.keys.sorted() { #expect(plainEnvironment[key] == nil, "\(key) reached the app") }
        #expect(plainEnvironment["PATH"] == ProcessInfo.processInfo.environment["PATH"])
        let ownEnvironment = Self.environment(of: ownPID)
        #expect(ownEnvironment["NOTIFY_SOCKET"] == "/run/app.sock")
        #expect(ownEnvironment["WATCHDOG_USEC"] == nil)
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
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

    /// What `fillQueue` sends.
    static let filler = "filler"

    /// Sends datagrams to this socket from another one until its queue is full (the kernel answers EAGAIN).
    func fillQueue() throws {
        let sender = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        defer { Glibc.close(sender) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in self.address.utf8.enumerated() { raw[index] = byte }
        }
        let message = Array(Self.filler.utf8)
        for _ in 0..<100_000 {
            let sent = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                    sendto(sender, message, message.count, 0, target, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if sent < 0 {
                guard errno == EAGAIN else { throw HarnessError(description: "fill \(self.address): errno \(errno)") }
                return
            }
        }
        throw HarnessError(description: "the queue of \(self.address) never filled")
    }

    /// Every datagram waiting now.
    func drain() -> [String] {
        var messages: [String] = []
        while let message = self.receive(timeoutMilliseconds: 0) { messages.append(message) }
        return messages
    }

    /// The next datagram within `timeoutMilliseconds`, or nil.
    func receive(timeoutMilliseconds: Int32) -> String? {
        var descriptor = pollfd(fd: self.fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeoutMilliseconds) == 1 else { return nil }
        return self.receive()
    }

    func close() {
        Glibc.close(self.fd)
        if self.address.hasPrefix("/") { unlink(self.address) }
    }
}
