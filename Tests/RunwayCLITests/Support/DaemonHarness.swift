import Foundation
import RunwayControl
import RunwayTestKit
import Testing

// A `runway run` daemon started as a real process for the end-to-end tests, with its own configuration
// directory and control socket, and helpers that wait on its output or its socket (never a fixed sleep).

struct HarnessError: Error, CustomStringConvertible {
    var description: String
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes; the timeout is generous, never a measurement.
func waitUntil(
    _ what: @autoclosure () -> String,
    timeout: Duration = .seconds(20),
    _ condition: () throws -> Bool
) throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw HarnessError(description: "timed out waiting for \(what())") }
        Thread.sleep(forTimeInterval: 0.01)
    }
}

final class DaemonProcess {
    let config: TemporaryConfig
    let socket: String
    let process = Process()
    let outputURL: URL
    /// `runway run`'s arguments after `--config DIR`: the test's, `--timeline always` unless the test gives
    /// `--timeline`, then `--state-directory`.
    let arguments: [String]
    /// Variables set for the daemon on top of the test's environment (for example `NOTIFY_SOCKET`).
    var environment: [String: String] = [:]
    /// A program and its arguments that run `runway` (`setpriv` dropping capabilities); empty runs it directly.
    var launcher: [String] = []

    /// The daemon's process state directory, inside the configuration directory (removed with it).
    var stateDirectory: String { self.config.path + "/state" }

    /// Writes a configuration with embedded apps (`apps`: identifier to extra plist keys), a short budget and the
    /// control socket in the temporary directory, then starts `runway run` on it and waits for the socket.
    init(
        apps: [String: String] = ["com.example.alpha": "", "com.example.beta": ""],
        settings: String =
            "<key>BackgroundTimeBudget</key><real>30</real><key>ExpirationWarningLead</key><real>5</real>",
        arguments: [String] = [],
        environment: [String: String] = [:],
        memoryPressureSource: String = "off",
        launcher: [String] = []
    ) throws {
        self.environment = environment
        self.launcher = launcher
        self.config = try TemporaryConfig()
        // Short, so that it fits sun_path (107 bytes) whatever TMPDIR is.
        self.socket = "/tmp/runway-test-\(UUID().uuidString.prefix(8)).sock"
        try self.config.write(
            "Runway.plist",
            plistXML(
                settings
                    + "<key>MemoryPressureSource</key><string>\(memoryPressureSource)</string>"
                    // 1 s unless the test sets its own.
                    + (settings.contains("<key>TerminationGrace</key>")
                        ? "" : "<key>TerminationGrace</key><real>1</real>")
                    + "<key>ControlSocket</key><string>\(self.socket)</string>"
            )
        )
        for (identifier, keys) in apps {
            try self.config.writeApp("\(identifier).plist", identifier: identifier, keys)
        }
        // The tests read transitions from the timeline, which a file gets only when asked, unless a test chooses.
        let timeline = arguments.contains("--timeline") ? [] : ["--timeline", "always"]
        self.arguments = arguments + timeline + ["--state-directory", self.config.path + "/state"]
        self.outputURL = URL(fileURLWithPath: self.config.path + "/daemon-output.txt")
        try self.start()
    }

    /// A second daemon on `previous`'s configuration, socket and state directory (after `previous` was killed),
    /// with output of its own. Close only the last one: closing removes the shared configuration.
    init(restarting previous: DaemonProcess) throws {
        self.config = previous.config
        self.socket = previous.socket
        self.arguments = previous.arguments
        self.outputURL = URL(fileURLWithPath: self.config.path + "/daemon-output-\(UUID().uuidString.prefix(8)).txt")
        try self.start()
    }

    /// Starts `runway run` and waits for its socket.
    private func start() throws {
        try Data().write(to: self.outputURL)
        let output = try FileHandle(forWritingTo: self.outputURL)
        let runway = try RunwayBinary.executable()
        self.process.executableURL = self.launcher.first.map { URL(fileURLWithPath: $0) } ?? runway
        self.process.arguments =
            self.launcher.dropFirst() + (self.launcher.isEmpty ? [] : [runway.path])
            + ["run", "--config", self.config.path] + self.arguments
        if !self.environment.isEmpty {
            self.process.environment = ProcessInfo.processInfo.environment.merging(self.environment) { $1 }
        }
        self.process.currentDirectoryURL = RunwayBinary.repositoryRoot()
        self.process.standardInput = FileHandle.nullDevice
        self.process.standardOutput = output
        self.process.standardError = output
        try self.process.run()
        try output.close()
        try waitUntil("the control socket \(self.socket)\n\(self.output)") {
            guard self.process.isRunning else {
                throw HarnessError(description: "daemon exited early:\n\(self.output)")
            }
            return (try? ControlClient(path: self.socket)) != nil
        }
    }

    /// Stops the daemon if it still runs (SIGKILL: the tests that care about a graceful stop call `stop`) and
    /// removes its files. Tests call it with `defer`: a test's locals may outlive it, so deinit is not relied on.
    func close() {
        if self.process.isRunning {
            kill(self.process.processIdentifier, SIGKILL)
            // Bounded, not waitUntilExit: Foundation sees the exit only once every copy of a socket it gave the
            // daemon is closed, and a process that inherited one from it would hang the test.
            try? waitUntil("the daemon to exit after SIGKILL", timeout: .seconds(10)) { !self.process.isRunning }
        }
        self.config.remove()
        try? FileManager.default.removeItem(atPath: self.socket)
    }

    /// Everything the daemon printed so far (standard output and error).
    var output: String {
        (try? String(contentsOf: self.outputURL, encoding: .utf8)) ?? ""
    }

    /// Runs `runway ARGUMENTS --socket SOCKET`.
    func cli(_ arguments: String...) throws -> RunResult {
        try RunwayBinary.run(arguments + ["--socket", self.socket])
    }

    func client() throws -> ControlClient {
        try ControlClient(path: self.socket)
    }

    /// One request on a fresh connection.
    func request(_ request: ControlRequest) throws -> ControlReply {
        try self.client().request(request)
    }

    func status(_ app: String) throws -> AppStatusPayload {
        let reply = try self.request(ControlRequest(command: "status", app: app))
        guard let row = reply.apps?.first else { throw HarnessError(description: "no status for \(app): \(reply)") }
        return row
    }

    /// Sends `signal` and waits for the exit status.
    func stop(_ signal: Int32 = SIGTERM) throws -> Int32 {
        kill(self.process.processIdentifier, signal)
        try waitUntil("the daemon to exit after signal \(signal)\n\(self.output)") { !self.process.isRunning }
        return self.process.terminationStatus
    }
}

/// A child process whose output goes to a file (for `runway events`, which runs until the daemon stops).
final class BackgroundCommand {
    let process = Process()
    let outputURL: URL

    init(_ executable: URL, _ arguments: [String]) throws {
        self.outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("runway-bg-\(UUID().uuidString)")
        try Data().write(to: self.outputURL)
        let output = try FileHandle(forWritingTo: self.outputURL)
        self.process.executableURL = executable
        self.process.arguments = arguments
        self.process.standardOutput = output
        self.process.standardError = output
        try self.process.run()
        try output.close()
    }

    /// Kills the command if it still runs and removes its output; call it with `defer`.
    func close() {
        if self.process.isRunning {
            kill(self.process.processIdentifier, SIGKILL)
            self.process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: self.outputURL)
    }

    var output: String { (try? String(contentsOf: self.outputURL, encoding: .utf8)) ?? "" }
}
