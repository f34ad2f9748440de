import Foundation
import RunwayControl

/// A daemon on a copy of the shipped `Config/`, in a scratch directory of its own, where the documents' commands
/// run as an operator would type them in a clone: the working directory holds `Config/` (its `Runway.plist` names
/// the scratch control socket, so that the CLI finds the daemon by reading it as it does by default) and
/// `.build/debug/runway`, and `runway` is on `PATH`. Nothing outside the scratch directory and the socket is written.
final class DocScratchDaemon {
    let directory: String
    let socket: String
    private let process = Process()

    init() throws {
        let binary = try RunwayBinary.executable().path
        self.directory =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "runway-doc-commands-\(UUID().uuidString.prefix(8))"
            ).path
        self.socket = "/tmp/runway-doc-\(UUID().uuidString.prefix(8)).sock"
        let files = FileManager.default
        try files.createDirectory(atPath: self.directory + "/.build/debug", withIntermediateDirectories: true)
        try files.createDirectory(atPath: self.directory + "/bin", withIntermediateDirectories: true)
        try files.createSymbolicLink(atPath: self.directory + "/.build/debug/runway", withDestinationPath: binary)
        try files.createSymbolicLink(atPath: self.directory + "/bin/runway", withDestinationPath: binary)
        try files.copyItem(atPath: RunwayBinary.shippedConfig, toPath: self.directory + "/Config")
        let plist = self.directory + "/Config/Runway.plist"
        let text = try String(contentsOfFile: plist, encoding: .utf8)
        guard let dict = text.range(of: "<dict>") else { throw HarnessError(description: "no <dict> in \(plist)") }
        // The scratch socket, and no memory-pressure purges that would end apps while the commands run.
        let keys =
            "\n<key>ControlSocket</key><string>\(self.socket)</string>"
            + "<key>MemoryPressureSource</key><string>off</string>"
        try text.replacingCharacters(in: dict, with: "<dict>" + keys).write(
            toFile: plist,
            atomically: true,
            encoding: .utf8
        )
        let output = self.directory + "/daemon-output.txt"
        try Data().write(to: URL(fileURLWithPath: output))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        self.process.executableURL = URL(fileURLWithPath: binary)
        self.process.arguments = ["run", "--config", "Config", "--state-directory", self.directory + "/state"]
        self.process.currentDirectoryURL = URL(fileURLWithPath: self.directory)
        var environment = ProcessInfo.processInfo.environment
        for name in Self.lookupVariables { environment[name] = nil }
        self.process.environment = environment
        self.process.standardInput = FileHandle.nullDevice
        self.process.standardOutput = handle
        self.process.standardError = handle
        try self.process.run()
        try handle.close()
        try waitUntil("the scratch daemon's socket\n\(self.output)") {
            guard self.process.isRunning else { throw HarnessError(description: "daemon exited:\n\(self.output)") }
            return (try? ControlClient(path: self.socket)) != nil
        }
    }

    var output: String {
        (try? String(contentsOfFile: self.directory + "/daemon-output.txt", encoding: .utf8)) ?? ""
    }

    /// The variables through which the CLI finds a daemon other than the one its flags or the working directory's
    /// `Config/` name: the caller's would send the documents' commands to the caller's daemon.
    static let lookupVariables = ["RUNWAY_SOCKET", "RUNWAY_CONFIG"]

    /// `environment` without `lookupVariables`, and with the scratch `bin/` first on `PATH`.
    func environment(from environment: [String: String]) -> [String: String] {
        var environment = environment
        for name in Self.lookupVariables { environment[name] = nil }
        environment["PATH"] = self.directory + "/bin:" + (environment["PATH"] ?? "/usr/bin:/bin")
        return environment
    }

    /// Runs `block` with `bash -e -o pipefail` in the scratch directory, bounded by `timeout`, in `environment`
    /// (by default the test's) less the variables that would point the CLI at another daemon.
    ///
    /// - Returns: Nil when it exited 0, else what failed with its output.
    func run(
        _ block: DocCommandBlock,
        timeout: Duration = .seconds(30),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> String? {
        let outputPath = self.directory + "/block-\(block.line).txt"
        try Data().write(to: URL(fileURLWithPath: outputPath))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = ["-e", "-o", "pipefail", "-c", block.text]
        shell.currentDirectoryURL = URL(fileURLWithPath: self.directory)
        shell.environment = self.environment(from: environment)
        shell.standardInput = FileHandle.nullDevice
        shell.standardOutput = handle
        shell.standardError = handle
        try shell.run()
        try handle.close()
        let deadline = ContinuousClock.now + timeout
        while shell.isRunning, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let printed = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        if shell.isRunning {
            kill(shell.processIdentifier, SIGKILL)
            return "\(block): still running after \(timeout)\n\(block.text)\n--- output ---\n\(printed)"
        }
        guard shell.terminationStatus != 0 else { return nil }
        return "\(block): exited \(shell.terminationStatus)\n\(block.text)\n--- output ---\n\(printed)"
    }

    /// Stops the daemon (SIGTERM, then SIGKILL after 20 s) and removes the scratch directory and socket.
    func close() {
        if self.process.isRunning {
            kill(self.process.processIdentifier, SIGTERM)
            if (try? waitUntil("the scratch daemon to stop") { !self.process.isRunning }) == nil {
                kill(self.process.processIdentifier, SIGKILL)
            }
        }
        try? FileManager.default.removeItem(atPath: self.directory)
        try? FileManager.default.removeItem(atPath: self.socket)
    }
}
