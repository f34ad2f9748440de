import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// `GET /metrics` of a real `runway run` (MetricsAddress, Docs/Operations.md): real HTTP over a real TCP socket,
/// after a scenario driven with the real CLI, and the body checked by Prometheus's own `promtool`.
@Suite(.serialized) struct MetricsEndpointTests {
    static let alpha = "com.example.alpha"
    static let beta = "com.example.beta"

    @Test func metricsAfterAScriptedScenarioHaveTheRightValuesAndPassPromtool() throws {
        // A 1 s budget with a 0.5 s warning: the expiration runs on real deadlines (lateness samples).
        let daemon = try DaemonProcess(
            settings: "<key>BackgroundTimeBudget</key><real>1</real><key>ExpirationWarningLead</key><real>0.5</real>"
                + "<key>MetricsPerApp</key><string>all</string>",
            arguments: ["--metrics-address", "127.0.0.1:0"]
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)

        // alpha: launched, a task, home: the budget runs out with the task held, OverrunPolicy terminate.
        #expect(try daemon.cli("launch", Self.alpha).status == 0)
        #expect(try daemon.cli("begin-task", Self.alpha, "upload").status == 0)
        #expect(try daemon.cli("home", Self.alpha).status == 0)
        // beta: launched and holding a task in the foreground.
        #expect(try daemon.cli("launch", Self.beta).status == 0)
        #expect(try daemon.cli("begin-task", Self.beta, "sync").status == 0)
        try waitUntil("alpha terminated by its budget\n\(daemon.output)") {
            try daemon.status(Self.alpha).state == "notRunning"
        }

        let answer = try httpGet(port: port)
        #expect(answer.status == 200, "\(answer)")
        #expect(answer.headers.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8"), "\(answer)")
        let text = answer.body
        let expected: [(String, Double)] = [
            ("runway_app_state{app=\"\(Self.alpha)\",state=\"notRunning\"}", 1),
            ("runway_app_state{app=\"\(Self.beta)\",state=\"active\"}", 1),
            ("runway_app_background_tasks{app=\"\(Self.alpha)\"}", 0),
            ("runway_app_background_tasks{app=\"\(Self.beta)\"}", 1),
            ("runway_transitions_total{from=\"notRunning\",to=\"inactive\",cause=\"command\"}", 2),
            ("runway_transitions_total{from=\"inactive\",to=\"active\",cause=\"command\"}", 2),
            ("runway_transitions_total{from=\"active\",to=\"background\",cause=\"command\"}", 1),
            ("runway_transitions_total{from=\"background\",to=\"notRunning\",cause=\"terminated\"}", 1),
            ("runway_terminations_total{reason=\"budgetOverrun\"}", 1),
            ("runway_background_tasks_begun_total", 2),
            ("runway_expiration_handlers_called_total", 1),
            ("runway_app_budget_expirations_total{app=\"\(Self.alpha)\"}", 1),
            ("runway_app_budget_expirations_total{app=\"\(Self.beta)\"}", 0),
            ("runway_app_budget_overruns_total{app=\"\(Self.alpha)\"}", 1),
            ("runway_app_budget_overruns_total{app=\"\(Self.beta)\"}", 0),
            ("runway_app_restarts_total{app=\"\(Self.alpha)\"}", 0),
            ("runway_apps", 2),
            ("runway_apps_in_state{state=\"notRunning\"}", 1),
            ("runway_apps_in_state{state=\"active\"}", 1),
            ("runway_metrics_scrapes_total", 1),
        ]
        for (series, value) in expected {
            #expect(sample(text, series) == value, "\(series)\n\(text)")
        }
        // One state series per app: none for the states an app is not in.
        #expect(sample(text, "runway_app_state{app=\"\(Self.alpha)\",state=\"background\"}") == nil, "\(text)")
        #expect(sample(text, "runway_app_state{app=\"\(Self.beta)\",state=\"notRunning\"}") == nil, "\(text)")
        // The warning and the deadline were served by the loop's wake-up: two lateness samples at least, each
        // under a second.
        let lateness = try #require(sample(text, "runway_deadline_lateness_seconds_count"), "\(text)")
        #expect(lateness >= 2, "\(text)")
        #expect(sample(text, "runway_deadline_lateness_seconds_bucket{le=\"1.0\"}") == lateness, "\(text)")
        #expect((sample(text, "runway_loop_busy_seconds_total") ?? 0) > 0, "\(text)")
        #expect(text.contains("# TYPE runway_deadline_lateness_seconds histogram"), "\(text)")
        #expect(text.contains("# TYPE runway_app_state gauge"), "\(text)")

        try Self.promtoolCheck(text)
        #expect(sample(try httpGet(port: port).body, "runway_metrics_scrapes_total") == 2)
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    @Test func restartsAndTheCrashLoopAreCountedAsStatusShowsThem() throws {
        // A child that exits 3 at once, restarted after 0.2 s, 0.4 s, 0.8 s (the cap) ...; crash-looping from the
        // second failure.
        let app = "com.example.crasher"
        let daemon = try DaemonProcess(
            apps: [
                app: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                    + "<string>exit 3</string></array>"
                    + "<key>KeepAlive</key><true/><key>ThrottleInterval</key><real>0.2</real>"
            ],
            settings: "<key>RestartBackoffLimit</key><real>0.8</real><key>CrashLoopThreshold</key><integer>2</integer>"
                + "<key>MetricsPerApp</key><string>all</string>",
            arguments: ["--metrics-address", "127.0.0.1:0"]
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)
        #expect(sample(try httpGet(port: port).body, "runway_app_crash_looping{app=\"\(app)\"}") == 0)
        // The launch itself succeeds (the program starts); its run ends at once with exit 3.
        #expect(try daemon.cli("launch", app).status == 0)
        try waitUntil("two restarts and a crash loop\n\(daemon.output)") {
            let status = try daemon.status(app)
            return status.crashLooping == true && (status.restarts ?? 0) >= 2
        }
        let looping = try httpGet(port: port).body
        #expect(sample(looping, "runway_app_crash_looping{app=\"\(app)\"}") == 1, "\(looping)")
        #expect((sample(looping, "runway_app_restarts_total{app=\"\(app)\"}") ?? 0) >= 2, "\(looping)")

        // Once the operator's terminate has cancelled the pending restart, the counter stops where status says.
        try waitUntil("a pending restart\n\(daemon.output)") { try daemon.status(app).nextRestart != nil }
        #expect(try daemon.cli("terminate", app).status == 0)
        let stopped = try daemon.status(app)
        let text = try httpGet(port: port).body
        #expect(sample(text, "runway_app_restarts_total{app=\"\(app)\"}") == Double(stopped.restarts ?? -1), "\(text)")
        #expect(sample(text, "runway_app_crash_looping{app=\"\(app)\"}") == 0, "\(text)")
        #expect(
            (sample(text, "runway_transitions_total{from=\"inactive\",to=\"active\",cause=\"restart\"}") ?? 0)
                == Double(stopped.restarts ?? -1),
            "\(text)"
        )
        try Self.promtoolCheck(text)
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    @Test func onlyGetMetricsIsServedAndEveryLimitIsNamed() throws {
        // The endpoint and its limits from Runway.plist this time.
        let daemon = try DaemonProcess(
            settings: "<key>MetricsAddress</key><string>127.0.0.1:0</string>"
                + "<key>MetricsConnectionLimit</key><integer>2</integer>"
                + "<key>MetricsRequestByteLimit</key><integer>1024</integer>"
                + "<key>MetricsIdleTimeout</key><real>0.5</real>"
        )
        defer { daemon.close() }
        let port = try metricsPort(daemon)

        var answer = try httpGet(port: port, "/")
        #expect(answer.status == 404, "\(answer)")
        answer = try httpGet(port: port, "/metrics?name=x")
        #expect(answer.status == 200, "a query string is ignored\n\(answer)")
        answer = try httpExchange(
            port: port,
            "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        #expect(answer.status == 405, "\(answer)")
        #expect(answer.headers.contains("Allow: GET, HEAD"), "\(answer)")
        answer = try httpExchange(port: port, "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(answer.status == 200 && answer.body.isEmpty, "HEAD is GET without the body\n\(answer)")
        #expect(answer.headers.contains("Content-Type: text/plain; version=0.0.4"), "\(answer)")
        answer = try httpExchange(port: port, "this is not HTTP\r\n\r\n")
        #expect(answer.status == 400, "NIO's decoder rejects it\n\(answer)")

        // MetricsRequestByteLimit: a header past 1 KiB.
        let big = String(repeating: "x", count: 2_000)
        answer = try httpExchange(port: port, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: \(big)\r\n\r\n")
        #expect(answer.status == 431, "\(answer)")
        #expect(answer.body.contains("more than 1024 bytes (MetricsRequestByteLimit)"), "\(answer)")

        // MetricsConnectionLimit: two idle connections held, the third is refused with a 503 naming the limit.
        let held = [try TCPConnection(port: port), try TCPConnection(port: port)]
        answer = try httpGet(port: port)
        #expect(answer.status == 503, "\(answer)")
        #expect(answer.body.contains("at most 2 at once (MetricsConnectionLimit)"), "\(answer)")
        // MetricsIdleTimeout: the held connections, which sent nothing, are closed by the daemon (EOF, no bytes).
        for connection in held {
            #expect(connection.readToEnd().raw.isEmpty)
        }
        try waitUntil("a connection slot to be free again") { (try? httpGet(port: port).status) == 200 }
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    @Test func aBadMetricsAddressIsRefusedNamingWhatIsExpected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write("Runway.plist", plistXML("<key>MetricsAddress</key><string>localhost:http</string>"))
        var result = try RunwayBinary.run("validate", "--config", config.path)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("MetricsAddress"), "\(result)")
        #expect(result.stderr.contains("HOST:PORT, [IPV6]:PORT or PORT"), "\(result)")

        try config.write("Runway.plist", plistXML("<key>LogLevel</key><string>verbose</string>"))
        result = try RunwayBinary.run("validate", "--config", config.path)
        #expect(result.status == 1 && result.stderr.contains("LogLevel"), "\(result)")
        #expect(result.stderr.contains("\"trace\", \"debug\", \"info\""), "\(result)")

        result = try RunwayBinary.run("run", "--config", config.path, "--metrics-address", "[::1]")
        #expect(result.status != 0 && result.stderr.contains("HOST:PORT, [IPV6]:PORT or PORT"), "\(result)")
    }

    /// `promtool check metrics` (Debian's prometheus package): required in CI (CI set), skipped with a note
    /// elsewhere when it is not installed.
    static func promtoolCheck(_ text: String) throws {
        let candidates = ["/usr/bin/promtool", "/usr/local/bin/promtool"]
        guard let promtool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            let inCI = !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty
            #expect(!inCI, "promtool is missing in CI: .ci/run installs Debian's prometheus package")
            print("note: promtool is not installed; `promtool check metrics` skipped (apt-get install prometheus)")
            return
        }
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("runway-metrics-\(UUID()).txt")
        try Data(text.utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\"$0\" check metrics < \"$1\" 2>&1", promtool, input.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "promtool check metrics:\n\(output)\n\(text)")
    }
}
