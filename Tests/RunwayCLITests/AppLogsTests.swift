import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// logs: Every process app's stdout and stderr captured in a bounded ring per run, stamped with the
/// wall clock, shown by `runway logs` (`-n`, `-f`, `--previous`, `--json`, `--stream`) and appended to
/// `StandardOutPath` / `StandardErrorPath` files with size-bounded rotation. Real daemon, real children.
@Suite("runway logs: captured app output", .serialized)
struct AppLogsTests {
    @Test("logs shows what a child printed, stamped with the wall clock and the stream; -n, --stream, --json")
    func logsShowWhatAChildPrinted() throws {
        let app = "com.test.logs.printer"
        let daemon = try DaemonProcess(apps: [
            app: AppLogFixtures.shell(
                "echo out-1; echo err-1 >&2; echo out-2; trap 'exit 0' TERM; while :; do sleep 0.05; done"
            ),
            "com.test.logs.embedded": "",
        ])
        defer { daemon.close() }
        let before = Date()
        _ = try daemon.cli("launch", app)
        try waitUntil("three lines in the ring\n\(daemon.output)") {
            try daemon.cli("logs", app).stdoutLines.count == 3
        }
        let all = try daemon.cli("logs", app)
        #expect(all.status == 0, "\(all)")
        var byStream: [String: [String]] = [:]
        for line in all.stdoutLines {
            let match = try #require(line.wholeMatch(of: AppLogFixtures.stamped), "not TIME STREAM TEXT: \(line)")
            let time = try #require(ISO8601DateFormatter.withMilliseconds.date(from: String(match.1)))
            #expect(abs(time.timeIntervalSince(before)) < 60, "a wall-clock time, not the daemon's clock: \(line)")
            byStream[String(match.2), default: []].append(String(match.3))
        }
        #expect(byStream == ["stdout": ["out-1", "out-2"], "stderr": ["err-1"]], "\(all)")

        let last = try daemon.cli("logs", app, "-n", "1", "--stream", "stdout")
        #expect(last.stdoutLines.count == 1 && last.stdout.hasSuffix(" stdout out-2\n"), "\(last)")
        #expect(try daemon.cli("logs", app, "-n", "2").stdoutLines.count == 2)
        #expect(try daemon.cli("logs", app, "-n", "0").stdout.isEmpty)
        let errors = try daemon.cli("logs", app, "--stream", "stderr")
        #expect(errors.stdoutLines.count == 1 && errors.stdout.hasSuffix(" stderr err-1\n"), "\(errors)")

        let json = try daemon.cli("logs", app, "--json")
        #expect(json.stdoutLines.count == 3, "\(json)")
        for line in json.stdoutLines {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
                "not a JSON object of strings: \(line)"
            )
            #expect(Set(object.keys) == ["time", "stream", "line"], "\(line)")
            #expect(ISO8601DateFormatter.withMilliseconds.date(from: object["time"] ?? "") != nil, "\(line)")
        }

        let embedded = try daemon.cli("logs", "com.test.logs.embedded")
        #expect(embedded.status == 1 && embedded.stderr.contains("embedded app"), "\(embedded)")
        let unknown = try daemon.cli("logs", "com.test.logs.nobody")
        #expect(unknown.status == 1 && unknown.stderr.contains("unknownApp"), "\(unknown)")
        let noPrevious = try daemon.cli("logs", app, "--previous")
        #expect(noPrevious.status == 1 && noPrevious.stderr.contains("no previous run"), "\(noPrevious)")
    }

    @Test("A line longer than 16 KiB keeps its first 16 KiB, with a marker")
    func longLineIsCutWithAMarker() throws {
        let app = "com.test.logs.long"
        let daemon = try DaemonProcess(apps: [
            app: AppLogFixtures.shell("head -c 20000 /dev/zero | tr '\\0' 'a'; echo; echo next")
        ])
        defer { daemon.close() }
        _ = try daemon.cli("launch", app)
        try waitUntil("the next line\n\(daemon.output)") { try daemon.cli("logs", app).stdout.contains("next") }
        let result = try daemon.cli("logs", app, "--json")
        let texts = try result.stdoutLines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])["line"] ?? ""
        }
        let marker = " [runway: cut, a line of more than 16384 bytes (outputLineLimitBytes)]"
        #expect(texts == [String(repeating: "a", count: 16_384) + marker, "next"], "\(texts.map(\.count))")
    }

    @Test("logs -f prints a line printed after it started, and exits 0 with a note when the daemon stops")
    func followSeesNewLinesAndEndsWithTheDaemon() throws {
        let app = "com.test.logs.follow"
        let files = try AppLogFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: files) }
        let go = files + "/go"
        let daemon = try DaemonProcess(apps: [
            app: AppLogFixtures.shell(
                "echo before; trap 'exit 0' TERM; while [ ! -e \(go) ]; do sleep 0.05; done; echo after; "
                    + "while :; do sleep 0.05; done"
            )
        ])
        defer { daemon.close() }
        _ = try daemon.cli("launch", app)
        try waitUntil("the first line\n\(daemon.output)") { try daemon.cli("logs", app).stdout.contains("before") }
        let follower = try BackgroundCommand(
            try RunwayBinary.executable(),
            ["logs", app, "-f", "--socket", daemon.socket]
        )
        defer { follower.close() }
        try waitUntil("the follower to print the ring\n\(follower.output)") {
            follower.output.contains("stdout before")
        }
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        try waitUntil("the follower to print the new line\n\(follower.output)") {
            follower.output.contains("stdout after")
        }
        #expect(try daemon.stop() == 0)
        try waitUntil("the follower to exit\n\(follower.output)") { !follower.process.isRunning }
        #expect(follower.process.terminationStatus == 0, "\(follower.output)")
        #expect(follower.output.contains("the daemon closed the connection"), "\(follower.output)")
    }

    @Test("logs --previous shows the last run's lines after a relaunch")
    func previousShowsTheLastRun() throws {
        let app = "com.test.logs.previous"
        let files = try AppLogFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: files) }
        let counter = files + "/runs"
        let daemon = try DaemonProcess(apps: [
            app: AppLogFixtures.shell(
                "n=$(cat \(counter) 2>/dev/null || echo 0); n=$((n+1)); echo $n > \(counter); echo run-$n"
            )
        ])
        defer { daemon.close() }
        _ = try daemon.cli("launch", app)
        try waitUntil("the first run's line\n\(daemon.output)") {
            try daemon.cli("logs", app).stdout.contains("run-1") && daemon.status(app).state == "notRunning"
        }
        _ = try daemon.cli("launch", app)
        try waitUntil("the second run's line\n\(daemon.output)") {
            try daemon.cli("logs", app).stdout.contains("run-2")
        }
        let current = try daemon.cli("logs", app)
        #expect(current.stdoutLines.count == 1 && !current.stdout.contains("run-1"), "\(current)")
        let previous = try daemon.cli("logs", app, "--previous")
        #expect(previous.status == 0, "\(previous)")
        #expect(previous.stdoutLines.count == 1 && previous.stdout.hasSuffix(" stdout run-1\n"), "\(previous)")
    }

    @Test("The ring bounds memory: beyond AppLogLineLimit the oldest lines go, and logs says how many")
    func ringDropsTheOldestLines() throws {
        let app = "com.test.logs.flood"
        let daemon = try DaemonProcess(
            apps: [app: AppLogFixtures.shell("i=0; while [ $i -lt 250 ]; do echo line-$i; i=$((i+1)); done")],
            settings: "<key>AppLogLineLimit</key><integer>100</integer>"
        )
        defer { daemon.close() }
        _ = try daemon.cli("launch", app)
        try waitUntil("the last line\n\(daemon.output)") {
            try daemon.cli("logs", app, "-n", "1").stdout.contains("line-249")
        }
        let result = try daemon.cli("logs", app)
        #expect(result.stdoutLines.count == 100, "\(result)")
        let numbers = result.stdoutLines.compactMap { $0.split(separator: "line-").last.flatMap { Int($0) } }
        #expect(numbers.last == 249 && !numbers.contains(0), "\(result)")
        #expect(numbers == Array((numbers.first ?? 0)...249), "the newest app lines, in order: \(numbers)")
        let note = try #require(result.stderr.firstMatch(of: #/(\d+) earlier line\(s\)/#), "\(result)")
        #expect(Int(note.1)! >= 150, "\(result)")
        #expect(result.stderr.contains("AppLogLineLimit"), "\(result)")
    }

    @Test("A follower that does not read is cut at ControlQueueByteLimit; another client is still served")
    func slowFollowerIsCut() throws {
        let app = "com.test.logs.slow"
        let line = String(repeating: "y", count: 100)
        let daemon = try DaemonProcess(
            apps: [
                app: AppLogFixtures.shell(
                    "trap 'exit 0' TERM; i=0; while [ $i -lt 40000 ]; do echo \(line); i=$((i+1)); done; "
                        + "while :; do sleep 0.05; done"
                )
            ],
            settings: "<key>ControlQueueByteLimit</key><integer>65536</integer>"
        )
        defer { daemon.close() }
        let follower = try daemon.client()
        try follower.send(ControlProtocol.encodedLine(ControlRequest(command: "logs", app: app, follow: true)))
        _ = try daemon.cli("launch", app)
        try waitUntil("40,000 lines read\n\(daemon.output)") {
            try daemon.cli("logs", app, "-n", "1").stdout.contains(line)
                && daemon.request(ControlRequest(command: "logs", app: app)).logs?.droppedLines ?? 0 >= 39_000
        }
        #expect(try daemon.status(app).state == "active", "another client is served")
        var last: [UInt8] = []
        while let next = try follower.readLine() { last = next }
        let reply = try ControlClient.decode(ControlReply.self, last)
        #expect(reply.error?.code == "slowReader", "\(String(decoding: last, as: UTF8.self))")
        #expect(reply.error?.message.contains("ControlQueueByteLimit") == true)
    }
}
