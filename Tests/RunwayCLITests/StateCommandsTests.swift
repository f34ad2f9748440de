import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// `runway discard-state`, `export-state` and `import-state` (R7, R6) on real daemons with the Python sample app
/// (Config/Programs/sample_app.py), which preserves its counter in didEnterBackground and prints the counter a
/// restoring launch hands it; and the Deployment.md recipe that moves a state to another node.
@Suite(.serialized) struct StateCommandsTests {
    static let app = "com.example.counter"
    static let other = "com.example.other"

    /// The Python sample as a protocol app that ends its background task at once.
    static var sampleKeys: String {
        let sample = RunwayBinary.repositoryRoot().appendingPathComponent("Config/Programs/sample_app.py").path
        return "<key>ProgramArguments</key><array><string>python3</string><string>\(sample)</string></array>"
            + "<key>RunwayProtocol</key><integer>1</integer><key>EnvironmentVariables</key><dict>"
            + "<key>SAMPLE_TASK_SECONDS</key><string>0.1</string></dict>"
    }

    /// The app's output in its current (or last) run.
    private func logs(_ daemon: DaemonProcess, _ app: String = Self.app) throws -> String {
        try daemon.cli("logs", app).stdout
    }

    /// Launches the app, waits until it is active, sends it Home and waits until it preserved its counter (1) and is
    /// suspended.
    private func preserveCounter(_ daemon: DaemonProcess, _ app: String = Self.app) throws {
        #expect(try daemon.cli("launch", app).status == 0)
        try waitUntil("\(app) active and counting\n\(daemon.output)") {
            try self.logs(daemon, app).contains("counter 1 (didBecomeActive)")
        }
        #expect(try daemon.cli("home", app).status == 0)
        try waitUntil("\(app) preserved its counter and is suspended\n\(daemon.output)") {
            try self.logs(daemon, app).contains("preserved counter 1") && daemon.status(app).state == "suspended"
        }
    }

    private func temporaryFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("runway-export-\(UUID().uuidString)").path
    }

    @Test func R7_discardStateMakesTheNextLaunchStartFromNothing() throws {
        let daemon = try DaemonProcess(apps: [Self.app: Self.sampleKeys])
        defer { daemon.close() }
        try self.preserveCounter(daemon)
        var result = try daemon.cli("discard-state", Self.app)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "\(Self.app): preserved state discarded\n", "\(result)")
        result = try daemon.cli("export-state", Self.app)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("\(Self.app) has no preserved state"), "\(result)")
        #expect(try daemon.cli("purge").stdout == "purge: purged \(Self.app)\n")
        #expect(try daemon.cli("launch", Self.app).status == 0)
        try waitUntil("the relaunched app counts from 1\n\(daemon.output)") {
            try self.logs(daemon).contains("counter 1 (didBecomeActive)")
        }
        #expect(try !self.logs(daemon).contains("restored counter"))
        #expect(try daemon.stop() == 0)
    }

    /// The Deployment.md recipe: the old node's apps end as at a shutdown (their states are kept), the export is
    /// written to a volume, and the new node imports it offline, before its daemon starts and RunAtLoad launches
    /// the app, which comes back with its counter.
    @Test func R6_anExportImportedOfflineIsRestoredByTheRunAtLoadLaunchOfAnotherDaemon() throws {
        let old = try DaemonProcess(apps: [Self.app: Self.sampleKeys])
        defer { old.close() }
        try self.preserveCounter(old)
        #expect(try old.cli("offer-shutdown").status == 0)
        #expect(try old.cli("accept-shutdown").status == 0)
        try waitUntil("the app ended by the shutdown") { try old.status(Self.app).state == "notRunning" }
        let export = self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: export) }
        var result = try old.cli("export-state", Self.app, "--output", export)
        #expect(result.status == 0, "\(result)")
        #expect(try old.stop() == 0)

        let new = try DaemonProcess(apps: [Self.app: Self.sampleKeys + "<key>RunAtLoad</key><true/>"])
        // Refused while a daemon answers: its view of the store would go stale.
        result = try RunwayBinary.run(
            ["import-state", Self.app, export, "--offline", "--config", new.config.path, "--socket", new.socket]
                + ["--state-directory", new.stateDirectory]
        )
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("a daemon answers on \(new.socket)"), "\(result)")
        #expect(try new.stop() == 0)
        result = try RunwayBinary.run(
            ["import-state", Self.app, export, "--offline", "--config", new.config.path, "--socket", new.socket]
                + ["--state-directory", new.stateDirectory]
        )
        #expect(result.status == 0, "\(result)")
        let restarted = try DaemonProcess(restarting: new)
        defer { restarted.close() }
        try waitUntil("the RunAtLoad launch restored the counter\n\(restarted.output)") {
            try self.logs(restarted).contains("restored counter 1 (shutdown)")
        }
        #expect(try restarted.stop() == 0)
    }

    @Test func R6_anExportImportedThroughTheDaemonRestoresAtTheNextLaunch() throws {
        let old = try DaemonProcess(apps: [Self.app: Self.sampleKeys])
        defer { old.close() }
        try self.preserveCounter(old)
        let export = self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: export) }
        #expect(try old.cli("export-state", Self.app, "--output", export).status == 0)

        let new = try DaemonProcess(apps: [Self.app: Self.sampleKeys])
        defer { new.close() }
        let result = try new.cli("import-state", Self.app, export)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("\(Self.app): preserved state imported ("), "\(result)")
        #expect(try new.cli("launch", Self.app).status == 0)
        try waitUntil("the launch restored the counter\n\(new.output)") {
            try self.logs(new).contains("restored counter 1 (")
        }
        #expect(try new.stop() == 0)
    }

    @Test func R7_importNamesWhatIsWrongAndImportsNothing() throws {
        let daemon = try DaemonProcess(
            apps: [Self.app: Self.sampleKeys, Self.other: Self.sampleKeys],
            settings: "<key>StateRestorationByteLimit</key><integer>64</integer>"
        )
        defer { daemon.close() }
        try self.preserveCounter(daemon)
        let export = self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: export) }
        #expect(try daemon.cli("export-state", Self.app, "--output", export).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: export))

        // A running app would replace the import with its own state.
        var result = try daemon.cli("import-state", Self.app, export)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("import-state needs \(Self.app) notRunning, and it is suspended"), "\(result)")

        result = try daemon.cli("import-state", Self.other, export)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("the export is of \(Self.app), not of \(Self.other)"), "\(result)")

        var changed = bytes
        changed[changed.count - 12] ^= 0x01
        let changedFile = self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: changedFile) }
        try changed.write(to: URL(fileURLWithPath: changedFile))
        result = try daemon.cli("import-state", Self.other, changedFile)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("checksum"), "\(result)")

        result = try daemon.cli("import-state", "com.example.nobody", export)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("unknownApp: no app 'com.example.nobody' is registered"), "\(result)")

        #expect(try daemon.cli("export-state", Self.other).status == 1)
        #expect(try daemon.stop() == 0)
    }

    @Test func R1_anExportOverTheLimitOfTheImportingDaemonIsRefusedNamingTheKey() throws {
        let old = try DaemonProcess(apps: [Self.app: Self.sampleKeys])
        defer { old.close() }
        try self.preserveCounter(old)
        let export = self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: export) }
        #expect(try old.cli("export-state", Self.app, "--output", export).status == 0)

        let small = try DaemonProcess(
            apps: [Self.app: Self.sampleKeys],
            settings: "<key>StateRestorationByteLimit</key><integer>4</integer>"
        )
        defer { small.close() }
        let result = try small.cli("import-state", Self.app, export)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("StateRestorationByteLimit (4 bytes"), "\(result)")
        #expect(try small.cli("export-state", Self.app).status == 1)
        #expect(try small.stop() == 0)
    }

    @Test func R7_stateCommandRepliesKeepTheOrderOfTheRequestsOnAConnection() throws {
        let daemon = try DaemonProcess(apps: [Self.app: Self.sampleKeys])
        defer { daemon.close() }
        let client = try daemon.client()
        // Sent without reading: the state commands' replies come from the store's queue, the others at once.
        let commands = ["exportState", "status", "discardState", "status", "exportState", "status"]
        var bytes: [UInt8] = []
        for (index, command) in commands.enumerated() {
            let app = command == "status" ? nil : Self.app
            bytes += ControlProtocol.encodedLine(ControlRequest(command: command, app: app, id: index + 1))
        }
        try client.send(bytes)
        var ids: [Int?] = []
        for _ in commands {
            guard let line = try client.readLine() else { break }
            ids.append(try ControlClient.decode(ControlReply.self, line).id)
        }
        #expect(ids == Array(1...commands.count), "\(ids)")
        #expect(try daemon.stop() == 0)
    }
}
