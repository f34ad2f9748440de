import Foundation
import RunwayControl
import Testing

/// The CLI conventions that need a real daemon: a failed spawn fails `launch`, long
/// reasons are cut in the table, "did you mean" for an app, the JSON fields as documented, `status --watch` when
/// the daemon stops.
@Suite struct CLIDaemonConventionsTests {
    static let missing = "com.example.missing"
    /// A program path of about 250 characters that does not exist.
    static let missingProgram = "/nonexistent/runway-test-" + String(repeating: "p", count: 225)

    static func jsonObject(_ text: some StringProtocol) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test func launchOfAMissingProgramFailsNamingWhy_theTableCutsTheReason() throws {
        let daemon = try DaemonProcess(
            apps: [
                Self.missing: "<key>ProgramArguments</key><array><string>\(Self.missingProgram)</string></array>"
            ]
        )
        defer { daemon.close() }

        let launch = try daemon.cli("launch", Self.missing)
        #expect(launch.status == 1, "\(launch)")
        #expect(launch.stdout.isEmpty, "\(launch)")
        #expect(
            launch.stderr.contains("error: spawnFailed: \(Self.missing) could not be started: ProgramArguments[0]"),
            "\(launch)"
        )
        #expect(launch.stderr.contains(Self.missingProgram), "the reason is whole in the error\n\(launch)")
        #expect(launch.stderr.contains("it is notRunning"), "\(launch)")
        let background = try daemon.cli("launch-background", Self.missing)
        #expect(background.status == 1 && background.stderr.contains("error: spawnFailed:"), "\(background)")
        // The protocol says it too, for clients other than the CLI.
        let reply = try daemon.request(ControlRequest(command: "launch", app: Self.missing))
        #expect(reply.ok == false && reply.error?.code == "spawnFailed", "\(reply)")

        // The table cuts the long reason to fit 100 columns, with an ellipsis; the state word stays whole ...
        let table = try daemon.cli("status")
        #expect(table.status == 0, "\(table)")
        let header = try #require(table.stdoutLines.first { $0.hasPrefix("APP ") }, "\(table)")
        let row = try #require(table.stdoutLines.first { $0.hasPrefix(Self.missing) }, "\(table)")
        let pidColumn = try #require(header.range(of: "PID")).lowerBound
        let stateColumn = try #require(header.range(of: "STATE")).lowerBound
        let state = row[stateColumn..<pidColumn].trimmingCharacters(in: .whitespaces)
        #expect(state.hasPrefix("notRunning (last: spawnFailed(") && state.hasSuffix("…)"), "\(table)")
        #expect(table.stdoutLines.allSatisfy { $0.count <= 100 }, "one reason no longer widens the table\n\(table)")
        // ... and --json has it whole.
        let json = try daemon.cli("status", Self.missing, "--json")
        let app = try #require((try Self.jsonObject(json.stdout)["apps"] as? [[String: Any]])?.first, "\(json)")
        let last = try #require(app["lastTermination"] as? String, "\(json)")
        #expect(last.hasPrefix("spawnFailed(") && last.contains(Self.missingProgram), "\(json)")
    }

    @Test func unknownAppSuggestsTheRegisteredOnesClose() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        let typo = try daemon.cli("launch", "com.example.alpah")
        #expect(typo.status == 1, "\(typo)")
        #expect(
            typo.stderr.contains(
                "error: unknownApp: no app 'com.example.alpah' is registered; did you mean 'com.example.alpha'?"
            ),
            "\(typo)"
        )
        let status = try daemon.cli("status", "com.example.bet", "--json")
        #expect(status.status == 1, "\(status)")
        let error = try RunwayBinary.jsonError(status)
        #expect(error.code == "unknownApp" && error.suggestions == ["com.example.beta"], "\(status)")
        #expect(error.message.hasSuffix("did you mean 'com.example.beta'?"), "\(status)")
        let far = try daemon.cli("home", "org.elsewhere.thing")
        #expect(far.status == 1 && far.stderr.contains("unknownApp"), "\(far)")
        #expect(!far.stderr.contains("did you mean"), "nothing registered is close\n\(far)")
    }

    /// Docs/ControlProtocol.md: `budgetRemainingSeconds` is absent when unlimited, and only a budgeted background
    /// period has it (with `deadlineAtSeconds`); it used to be 0 for notRunning and suspended apps.
    @Test func budgetRemainingIsPresentExactlyInABudgetedBackgroundPeriod() throws {
        let daemon = try DaemonProcess(
            apps: ["com.example.alpha": "", "com.example.beta": "", "com.example.gamma": ""]
        )
        defer { daemon.close() }
        #expect(try daemon.cli("launch", "com.example.alpha").status == 0)
        #expect(try daemon.cli("begin-task", "com.example.alpha", "upload").status == 0)
        #expect(try daemon.cli("home", "com.example.alpha").status == 0)
        #expect(try daemon.cli("launch", "com.example.beta").status == 0)
        #expect(try daemon.cli("home", "com.example.beta").status == 0)
        let result = try daemon.cli("status", "--json")
        let apps = try #require(try Self.jsonObject(result.stdout)["apps"] as? [[String: Any]], "\(result)")
        let byName = Dictionary(uniqueKeysWithValues: apps.map { ($0["app"] as? String ?? "", $0) })
        let alpha = try #require(byName["com.example.alpha"])
        let beta = try #require(byName["com.example.beta"])
        let gamma = try #require(byName["com.example.gamma"])
        #expect(alpha["state"] as? String == "background", "\(result)")
        #expect((alpha["budgetRemainingSeconds"] as? Double).map { $0 > 0 && $0 <= 30 } == true, "\(result)")
        #expect(beta["state"] as? String == "suspended", "\(result)")
        #expect(beta["budgetRemainingSeconds"] == nil, "suspended: absent\n\(result)")
        #expect(gamma["state"] as? String == "notRunning", "\(result)")
        #expect(gamma["budgetRemainingSeconds"] == nil, "notRunning: absent\n\(result)")
        for app in apps {
            #expect((app["budgetRemainingSeconds"] == nil) == (app["deadlineAtSeconds"] == nil), "\(app)")
        }
        #expect(try daemon.cli("foreground", "com.example.alpha").status == 0)
        let active = try daemon.status("com.example.alpha")
        #expect(active.state == "active" && active.budgetRemainingSeconds == nil, "unlimited: absent")
    }

    /// A `runway status --watch` with standard output and standard error in files of their own.
    final class Watch {
        let process = Process()
        let out: URL
        let err: URL

        init(_ arguments: [String]) throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("runway-watch-\(UUID())")
            self.out = base.appendingPathExtension("out")
            self.err = base.appendingPathExtension("err")
            try Data().write(to: self.out)
            try Data().write(to: self.err)
            let out = try FileHandle(forWritingTo: self.out)
            let err = try FileHandle(forWritingTo: self.err)
            self.process.executableURL = try RunwayBinary.executable()
            self.process.arguments = ["status", "--watch", "--interval", "0.1"] + arguments
            self.process.standardInput = FileHandle.nullDevice
            self.process.standardOutput = out
            self.process.standardError = err
            try self.process.run()
            try out.close()
            try err.close()
        }

        var stdout: String { (try? String(contentsOf: self.out, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOf: self.err, encoding: .utf8)) ?? "" }

        func close() {
            if self.process.isRunning {
                kill(self.process.processIdentifier, SIGKILL)
                self.process.waitUntilExit()
            }
            try? FileManager.default.removeItem(at: self.out)
            try? FileManager.default.removeItem(at: self.err)
        }
    }

    @Test func statusWatchShowsTheTimeAndEndsWithALineWhenTheDaemonStops_JSONLines() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        let table = try Watch(["--socket", daemon.socket])
        defer { table.close() }
        let json = try Watch(["--socket", daemon.socket, "--json"])
        defer { json.close() }
        try waitUntil("three frames of each\n\(table.stdout)\n\(json.stdout)") {
            table.stdout.components(separatedBy: "APP ").count > 3 && json.stdout.split(separator: "\n").count >= 3
        }
        #expect(try daemon.stop() == 0, "\(daemon.output)")
        try waitUntil("both watches to exit") { !table.process.isRunning && !json.process.isRunning }

        let stopped = "runway status: the daemon stopped (\(daemon.socket) closed the connection)"
        #expect(table.process.terminationStatus == 0, "\(table.stdout)\n\(table.stderr)")
        #expect(table.stderr.isEmpty, "\(table.stderr)")
        let lines = table.stdout.components(separatedBy: "\n")
        #expect(lines.suffix(2) == [stopped, ""], "\(table.stdout)")
        let headers = lines.filter { $0.hasPrefix("Every ") }
        #expect(headers.count >= 3, "\(table.stdout)")
        let pattern = #/^Every 0\.1s: runway status    \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}$/#
        #expect(headers.allSatisfy { $0.wholeMatch(of: pattern) != nil }, "\(headers)")
        // Each header is followed by its frame.
        for (index, line) in lines.enumerated() where line.hasPrefix("Every ") {
            #expect(lines[index + 1].hasPrefix("runway daemon pid "), "\(table.stdout)")
        }

        #expect(json.process.terminationStatus == 0, "\(json.stdout)\n\(json.stderr)")
        #expect(json.stderr == stopped + "\n", "\(json.stderr)")
        #expect(json.stdout.hasSuffix("}\n"), "\(json.stdout)")
        let jsonLines = json.stdout.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(jsonLines.count >= 3, "\(json.stdout)")
        for line in jsonLines {
            #expect(!line.isEmpty, "no blank line between JSON lines\n\(json.stdout)")
            let object = try Self.jsonObject(line)
            #expect(object["ok"] as? Bool == true && object["apps"] is [Any], "\(line)")
        }
    }
}
