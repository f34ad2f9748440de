import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// `runway run`'s own output (Docs/Operations.md, "The daemon's log"): a standard output or error whose reader
/// stops reading, or goes away, neither blocks the daemon's loop nor stops the daemon.
@Suite(.serialized) struct DaemonOutputReaderTests {
    static let alpha = "com.example.alpha"

    /// A configuration with one embedded app and its control socket; `runway run` on it with both standard streams
    /// on `output`, waiting for the socket.
    static func start(
        _ config: TemporaryConfig,
        socket: String,
        output: FileHandle,
        _ arguments: [String]
    ) throws -> Process {
        try config.write(
            "Runway.plist",
            plistXML(
                "<key>MemoryPressureSource</key><string>off</string><key>TerminationGrace</key><real>1</real>"
                    + "<key>ControlSocket</key><string>\(socket)</string>"
            )
        )
        try config.writeApp("alpha.plist", identifier: Self.alpha)
        let process = Process()
        process.executableURL = try RunwayBinary.executable()
        process.arguments =
            ["run", "--config", config.path, "--state-directory", config.path + "/state"] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try waitUntil("the control socket \(socket)") {
            guard process.isRunning else { throw HarnessError(description: "the daemon exited early") }
            return (try? ControlClient(path: socket)) != nil
        }
        return process
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
        let config = try TemporaryConfig()
        let socket = "/tmp/runway-out-\(UUID().uuidString.prefix(8)).sock"
        let pipe = Pipe()
        let daemon = try Self.start(
            config,
            socket: socket,
            output: pipe.fileHandleForWriting,
            ["--log-format", "json", "--log-level", "info", "--timeline", "always"]
        )
        defer {
            if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) }
            config.remove()
        }
        try pipe.fileHandleForWriting.close()
        // The reader goes away: every later line of the timeline and the JSON log meets EPIPE.
        try pipe.fileHandleForReading.close()
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
        let config = try TemporaryConfig()
        let socket = "/tmp/runway-out-\(UUID().uuidString.prefix(8)).sock"
        let pipe = Pipe()
        // The smallest pipe the kernel allows (one page): it is full after a few dozen timeline lines.
        let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ
        _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, setPipeSize, 4096)
        let daemon = try Self.start(
            config,
            socket: socket,
            output: pipe.fileHandleForWriting,
            ["--log-format", "text", "--log-level", "info", "--timeline", "always"]
        )
        defer {
            if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) }
            config.remove()
        }
        try pipe.fileHandleForWriting.close()
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
}
