import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// `runway run`'s streams, one per purpose (Docs/Operations.md, "The daemon's log"): the log on standard error has
/// each transition once; the timeline of the same transitions goes to standard output only on a terminal or with
/// `--timeline always`; JSON log lines keep their values' structure.
@Suite(.serialized) struct DaemonStreamsTests {
    static let alpha = "com.example.alpha"

    /// A daemon configuration on `socket` with no memory watch and a 1 s grace, plus `extra` keys, and the app `alpha`
    /// (a sleeper).
    static func writeConfig(_ config: TemporaryConfig, socket: String, extra: String = "") throws {
        try config.write(
            "Runway.plist",
            plistXML(
                "<key>MemoryPressureSource</key><string>off</string><key>TerminationGrace</key><real>1</real>"
                    + "<key>ControlSocket</key><string>\(socket)</string>" + extra
            )
        )
        try config.writeApp("alpha.plist", identifier: Self.alpha)
    }
    static let sleeper = "com.example.sleeper"
    static let sleeperKeys =
        "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
        + "<string>trap 'exit 0' TERM; while :; do sleep 1; done</string></array>"

    /// The JSON lines of the daemon's output, decoded.
    static func jsonLines(_ output: String) -> [[String: Any]] {
        DaemonLoggingTests.jsonLines(output)
    }

    /// The `transition` log lines about `app`, as `from->to`.
    static func loggedMoves(_ output: String, app: String) -> [String] {
        self.jsonLines(output).filter { $0["message"] as? String == "transition" }
            .compactMap { $0["metadata"] as? [String: Any] }.filter { $0["app"] as? String == app }
            .map { "\($0["from"] as? String ?? "?")->\($0["to"] as? String ?? "?")" }
    }

    @Test func withStandardOutputNotATerminalEachTransitionIsLoggedOnceAndNotPrinted() throws {
        // Standard output and error into one file, as under journald.
        let daemon = try DaemonProcess(arguments: ["--log-level", "info", "--log-format", "json", "--timeline", "auto"])
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.alpha).status == 0)
        try waitUntil("alpha active") { try daemon.status(Self.alpha).state == "active" }
        #expect(try daemon.stop(SIGTERM) == 0)
        let output = daemon.output
        #expect(
            Self.loggedMoves(output, app: Self.alpha)
                == ["notRunning->inactive", "inactive->active", "active->notRunning"],
            "\(output)"
        )
        #expect(!output.contains(" -> "), "no timeline line: \(output)")
        // The daemon's own events are still printed: the log does not have them.
        #expect(output.contains("runway daemon pid "), "\(output)")
        #expect(output.contains("stopping; terminating 1 running app(s)"), "\(output)")
    }

    @Test func withStandardOutputAPipeAScenarioPrintsItsStepsAndTheLogHasEachTransitionOnce() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("a.plist", identifier: Self.alpha)
        let scenario = try config.write(
            "launch.jsonl",
            """
            {"at": 0,   "app": "\(Self.alpha)", "do": "launch"}
            {"at": 0.3, "app": "\(Self.alpha)", "expect": "active"}

            """
        )
        let socket = "/tmp/runway-test-\(UUID().uuidString.prefix(8)).sock"
        let runway = try RunwayBinary.executable().path
        let (out, err) = (config.path + "/out.txt", config.path + "/err.txt")
        // Standard output is a pipe into cat, standard error a file.
        let result = try shell(
            "/bin/sh",
            [
                "-c",
                "\(runway) run --config \(config.path) --scenario \(scenario) --socket \(socket) --state-directory "
                    + "\(config.path)/state --log-level info --log-format json 2>\(err) | cat >\(out)",
            ]
        )
        let printed = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let logged = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        #expect(result.status == 0, "\(result.output)\n\(printed)\n\(logged)")
        #expect(printed.contains("> launch") && printed.contains("every step held"), "\(printed)")
        #expect(!printed.contains(" -> "), "no timeline line in the pipe: \(printed)")
        #expect(
            Self.loggedMoves(logged, app: Self.alpha)
                == ["notRunning->inactive", "inactive->active", "active->notRunning"],
            "\(logged)"
        )
    }

    @Test func timelineAlwaysPrintsTheTransitionsIntoAFileBesideTheLog() throws {
        let daemon = try DaemonProcess(arguments: [
            "--log-level", "info", "--log-format", "json", "--timeline", "always",
        ])
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.alpha).status == 0)
        try waitUntil("the timeline's line\n\(daemon.output)") {
            daemon.output.contains("notRunning -> inactive  [command(launch)]")
        }
        #expect(Self.loggedMoves(daemon.output, app: Self.alpha).first == "notRunning->inactive", "\(daemon.output)")
    }

    @Test(.enabled(if: TerminalTests.tmuxPath != nil, "tmux is not installed (.ci/run installs it)"))
    func onATerminalTheTimelineIsPrintedAndTheLogStaysOnStandardError() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let socket = "/tmp/runway-streams-\(UUID().uuidString.prefix(8)).sock"
        try Self.writeConfig(config, socket: socket, extra: "<key>LogLevel</key><string>info</string>")
        let log = config.path + "/log.txt"
        let runway = try RunwayBinary.executable().path
        let tmux = TerminalTests.Tmux(path: try #require(TerminalTests.tmuxPath))
        defer { tmux.close() }
        // Standard output is the pane (a terminal), standard error a file; no --timeline: the default, auto.
        try tmux.start(
            "exec \(runway) run --config \(config.path) --state-directory \(config.path)/state 2>\(log)"
        )
        try waitUntil("the control socket") { (try? ControlClient(path: socket)) != nil }
        let reply = try ControlClient(path: socket).request(ControlRequest(command: "launch", app: Self.alpha))
        #expect(reply.error == nil, "\(reply)")
        var screen: [String] = []
        try waitUntil("the timeline on the tmux screen") {
            screen = try tmux.screen()
            return screen.contains { $0.contains("notRunning -> inactive  [command(launch)]") }
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains("transition"), "the log has the transition: \(text)")
        #expect(!screen.contains { $0.contains("transition") && $0.contains("from=") }, "\(screen)")
        let pid = try #require(
            try ControlClient(path: socket).request(ControlRequest(command: "status")).daemon?.pid
        )
        kill(pid, SIGTERM)
        do {
            // A zombie counts as stopped: tmux reaps its panes when it gets to it.
            try waitUntil("the daemon to stop: \((try? tmux.screen()) ?? [])") { !PidFiles.isAlive(pid) }
        } catch {
            kill(pid, SIGKILL)
            throw error
        }
    }

    @Test func jsonLogLinesKeepArraysAsArraysAndNumbersAsNumbers() throws {
        let daemon = try DaemonProcess(
            apps: [Self.sleeper: Self.sleeperKeys],
            arguments: ["--log-level", "info", "--log-format", "json"]
        )
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.sleeper).status == 0)
        try waitUntil("the sleeper active") { try daemon.status(Self.sleeper).state == "active" }
        let pid = try #require(try daemon.status(Self.sleeper).pid)
        let lines = Self.jsonLines(daemon.output)
        let transition = try #require(
            lines.first { $0["message"] as? String == "transition" }?["metadata"] as? [String: Any]
        )
        #expect(transition["messages"] as? [String] == ["didFinishLaunching"], "\(daemon.output)")
        let started = try #require(
            lines.first { $0["message"] as? String == "process started" }?["metadata"] as? [String: Any]
        )
        #expect(started["pid"] is NSNumber, "\(daemon.output)")
        #expect((started["pid"] as? NSNumber)?.int32Value == pid, "\(daemon.output)")
        #expect(try daemon.stop(SIGTERM) == 0)
    }
}
