import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// `runway run`'s own output (Docs/Operations.md, "The daemon's log"): a standard output or error whose reader
/// stops reading, or goes away, neither blocks the daemon's loop nor stops the daemon.
@Suite(.serialized) struct DaemonOutputReaderTests {
    static let alpha = "com.example.alpha"

    /// `runway run` on a fresh configuration with one embedded app, both standard streams on the write end of
    /// `pipe` (which this process closes once the daemon holds it), after its control socket answers.
    struct Running {
        let config: TemporaryConfig
        let socket: String
        let pipe: Pipe
        let daemon: Process

        /// Kills the daemon if it still runs and removes its configuration.
        func remove() {
            if self.daemon.isRunning { kill(self.daemon.processIdentifier, SIGKILL) }
            self.config.remove()
        }
    }

    /// Starts `runway run` with `arguments`; `pipeBytes` sets the pipe's capacity first (F_SETPIPE_SZ).
    static func running(_ arguments: [String], pipeBytes: Int32? = nil) throws -> Running {
        let config = try TemporaryConfig()
        let socket = "/tmp/runway-out-\(UUID().uuidString.prefix(8)).sock"
        let pipe = Pipe()
        if let pipeBytes {
            let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ
            _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, setPipeSize, pipeBytes)
        }
        let process = Process()
        let running = Running(config: config, socket: socket, pipe: pipe, daemon: process)
        do {
            try DaemonStreamsTests.writeConfig(config, socket: socket)
            process.executableURL = try RunwayBinary.executable()
            process.arguments =
                ["run", "--config", config.path, "--state-directory", config.path + "/state"] + arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = pipe.fileHandleForWriting
            process.standardError = pipe.fileHandleForWriting
            try process.run()
            try waitUntil("the control socket \(socket)") {
                guard process.isRunning else { throw HarnessError(description: "the daemon exited early") }
                return (try? ControlClient(path: socket)) != nil
            }
            try pipe.fileHandleForWriting.close()
        } catch {
            running.remove()
            throw error
        }
        return running
    }

    /// Sends `command` about alpha; the daemon must answer.
    static func request(_ socket: String, _ command: String) throws {
        let reply = try ControlClient(path: socket).request(ControlRequest(command: command, app: Self.alpha))
        #expect(reply.error == nil, "\(command): \(reply)")
    }

    /// SIGTERM, then the exit status, waiting at most `seconds`.
    static func stop(_ process: Process, within seconds: Int) throws -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        try waitUntil("the daemon to exit after SIGTERM", timeout: .seconds(seconds)) { !process.isRunning }
        return process.terminationStatus
    }

    @Test func aStandardOutputAndErrorWhoseReaderWentAwayDoNotStopTheDaemon() throws {
        let running = try Self.running(["--log-format", "json", "--log-level", "info", "--timeline", "always"])
        defer { running.remove() }
        let (socket, daemon) = (running.socket, running.daemon)
        // The reader goes away: every later line of the timeline and the JSON log meets EPIPE.
        try running.pipe.fileHandleForReading.close()
        for command in ["launch", "enterBackground", "enterForeground", "enterBackground", "enterForeground"] {
            try Self.request(socket, command)
        }
        // A reload logs and prints too.
        kill(daemon.processIdentifier, SIGHUP)
        try Self.request(socket, "enterBackground")
        #expect(daemon.isRunning)
        #expect(try Self.stop(daemon, within: 20) == 0)
    }

    @Test func aStandardOutputThatIsNotReadDoesNotBlockTheLoop() throws {
        // The smallest pipe the kernel allows (one page): it is full after a few dozen timeline lines.
        let running = try Self.running(
            ["--log-format", "text", "--log-level", "info", "--timeline", "always"],
            pipeBytes: 4096
        )
        defer { running.remove() }
        let (socket, daemon, pipe) = (running.socket, running.daemon, running.pipe)
        // Nobody reads the pipe: the daemon still answers every request (each writes timeline and log lines) and
        // acts on SIGTERM.
        let start = ContinuousClock.now
        try Self.request(socket, "launch")
        for _ in 0..<100 {
            try Self.request(socket, "enterBackground")
            try Self.request(socket, "enterForeground")
        }
        #expect(ContinuousClock.now - start < .seconds(20), "requests waited on the output")
        #expect(try Self.stop(daemon, within: 20) == 0)
        // What fitted in the pipe was written, in order, from the start.
        let written = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
        #expect(written.contains("runway daemon pid "), "\(written.prefix(500))")
    }

    /// `runway_output_lines_dropped_total{stream="stdout"}` now.
    static func droppedOnStandardOutput(port: Int) throws -> Int {
        let body = try httpGet(port: port).body
        let line = body.split(separator: "\n").first {
            $0.hasPrefix("runway_output_lines_dropped_total{stream=\"stdout\"} ")
        }
        return Int(line?.split(separator: " ").last ?? "") ?? -1
    }

    @Test func linesAReaderMissedAreCountedInTheMetricAndInOneLineWhenItReadsAgain() throws {
        let running = try Self.running(
            ["--log-level", "info", "--timeline", "always", "--metrics-address", "127.0.0.1:0"]
        )
        defer { running.remove() }
        let (socket, daemon) = (running.socket, running.daemon)
        // The start lines name the metrics port; then the test stops reading.
        let reader = running.pipe.fileHandleForReading
        var start = ""
        try waitUntil("the metrics line\n\(start)") {
            start += String(decoding: reader.availableData, as: UTF8.self)
            return start.contains("metrics: http://")
        }
        let url = try #require(
            start.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("http://") }
        )
        let port = try #require(Int(url.split(separator: ":").last?.split(separator: "/").first ?? ""))
        let client = try ControlClient(path: socket)
        #expect(try client.request(ControlRequest(command: "launch", app: Self.alpha)).error == nil)
        // Toggle until standard output's 1 MiB buffer is full and lines are dropped (a few thousand toggles).
        var toggles = 0
        while try Self.droppedOnStandardOutput(port: port) == 0 && toggles < 20_000 {
            for _ in 0..<250 {
                #expect(try client.request(ControlRequest(command: "enterBackground", app: Self.alpha)).error == nil)
                #expect(try client.request(ControlRequest(command: "enterForeground", app: Self.alpha)).error == nil)
            }
            toggles += 250
        }
        #expect(try Self.droppedOnStandardOutput(port: port) > 0, "after \(toggles) toggles")
        // The reader reads again: the next line is preceded by the count of those it missed.
        let collected = RunwayLockedText()
        let drain = Thread {
            while true {
                let data = reader.availableData
                if data.isEmpty { return }
                collected.append(String(decoding: data, as: UTF8.self))
            }
        }
        drain.start()
        try waitUntil("the buffer written") { collected.text.count > 1_000_000 }
        // Every line dropped is in a count line, once the next line fits (the test goes on toggling to write one).
        var counted = 0
        var dropped = 0
        var background = false
        try waitUntil("count lines adding up to the metric (\(counted) of \(dropped))") {
            background.toggle()
            let command = background ? "enterBackground" : "enterForeground"
            #expect(try client.request(ControlRequest(command: command, app: Self.alpha)).error == nil)
            let notices = collected.text.split(separator: "\n").filter {
                $0.hasPrefix("runway: ") && $0.contains("line(s) not written to stdout")
            }
            counted = notices.compactMap { Int($0.split(separator: " ")[1]) }.reduce(0, +)
            dropped = try Self.droppedOnStandardOutput(port: port)
            return counted > 0 && counted == dropped
        }
        #expect(try Self.stop(daemon, within: 20) == 0)
    }
}

/// Text appended by one thread and read by another.
final class RunwayLockedText: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only with `lock` held.
    private let lock = NSLock()
    private var value = ""

    var text: String { self.lock.withLock { self.value } }

    func append(_ more: String) { self.lock.withLock { self.value += more } }
}
