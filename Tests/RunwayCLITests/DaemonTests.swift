import CLibUV
import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// `runway run` as a real process, driven with the real CLI and raw socket clients (K1–K3, C3, P4).
@Suite(.serialized) struct DaemonTests {
    static let alpha = "com.example.alpha"

    @Test func K2_statusEventsAndCommandsThroughTheCLI() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        let events = try BackgroundCommand(
            try RunwayBinary.executable(),
            ["events", "--json", "--socket", daemon.socket]
        )
        defer { events.close() }
        // `runway events` says on standard error when its subscription is in place; nothing is missed after that.
        try waitUntil("runway events to subscribe\n\(events.output)") { events.output.contains("subscribed") }
        // A raw subscriber too, to wait on transitions in this test.
        let barrier = try daemon.client()
        #expect(try barrier.request(ControlRequest(command: "events")).subscribed == true)

        var result = try daemon.cli("launch", Self.alpha)
        #expect(result.status == 0, "\(result)")
        // Inactive until didFinishLaunching returns (L9).
        #expect(result.stdout == "\(Self.alpha): inactive\n", "\(result)")
        try waitUntil("alpha active\n\(daemon.output)") { try daemon.status(Self.alpha).state == "active" }
        result = try daemon.cli("status", Self.alpha)
        #expect(result.status == 12, "status APP exits 12 for active\n\(result)")

        result = try daemon.cli("begin-task", Self.alpha, "upload")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("began task#1 \"upload\""), "\(result)")
        result = try daemon.cli("home", Self.alpha)
        #expect(result.stdout == "\(Self.alpha): background\n", "\(result)")

        let before = try daemon.status(Self.alpha)
        #expect(before.state == "background")
        #expect(before.kind == "embedded")
        #expect(before.tasks.map(\.name) == ["upload"])
        #expect(before.tasks.map(\.id) == [1])
        #expect((before.budgetRemainingSeconds ?? 0) > 25 && (before.budgetRemainingSeconds ?? 99) <= 30)
        let deadline = try #require(before.deadlineAtSeconds)

        // Operator override: the deadline moves exactly 5 s.
        result = try daemon.cli("extend", Self.alpha, "5")
        #expect(result.status == 0, "\(result)")
        let extended = try #require(try daemon.status(Self.alpha).deadlineAtSeconds)
        #expect(abs(extended - deadline - 5) < 1e-6, "deadline \(deadline) -> \(extended)")

        // status --json is the protocol's reply.
        result = try daemon.cli("status", "--json")
        #expect(result.status == 0, "\(result)")
        let reply = try ControlClient.decode(ControlReply.self, Array(result.stdoutData.dropLast()))
        #expect(reply.apps?.map(\.app) == ["com.example.alpha", "com.example.beta"])
        #expect(reply.apps?.map(\.state) == ["background", "notRunning"])
        #expect(reply.daemon?.socket == daemon.socket)

        // Expire with the task outstanding: OverrunPolicy terminate.
        result = try daemon.cli("expire", Self.alpha)
        #expect(result.status == 0, "\(result)")
        while let line = try barrier.readLine() {
            if try ControlClient.decode(ControlEventLine.self, line).event.to == "notRunning" { break }
        }
        result = try daemon.cli("status", Self.alpha)
        #expect(result.status == 10, "status APP exits 10 for notRunning\n\(result)")
        #expect(result.stdout.contains("notRunning (last: budgetOverrun)"), "\(result)")

        // Refusals name the app, its state and the command; exit 1.
        result = try daemon.cli("foreground", Self.alpha)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stderr.contains("illegalCommand: com.example.alpha cannot enterForeground in state notRunning"),
            "\(result)"
        )
        result = try daemon.cli("extend", Self.alpha, "3")
        #expect(result.status == 1 && result.stderr.contains("noBudget"), "\(result)")
        result = try daemon.cli("launch", "com.example.nope")
        #expect(result.status == 1 && result.stderr.contains("no app 'com.example.nope'"), "\(result)")

        // The events stream saw every transition, in order.
        func eventLines() -> [Substring] { events.output.split(separator: "\n").filter { $0.hasPrefix("{") } }
        try waitUntil("four transitions on `runway events --json`\n\(events.output)") { eventLines().count >= 4 }
        let transitions = try eventLines().map {
            try ControlClient.decode(ControlEventLine.self, Array($0.utf8)).event
        }
        let summary = transitions.map { "\($0.app) \($0.from)->\($0.to) \($0.reason ?? "")" }
        #expect(
            summary == [
                "com.example.alpha notRunning->inactive ",
                "com.example.alpha inactive->active ",
                "com.example.alpha active->background ",
                "com.example.alpha background->notRunning budgetOverrun",
            ]
        )
        #expect(transitions[2].messages == ["willResignActive", "didEnterBackground"])

        // P4: SIGTERM stops it; the events client ends with the daemon.
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
        try waitUntil("runway events to exit") { !events.process.isRunning }
        #expect(events.process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socket), "the socket file is removed on exit")
    }

    /// B9 through the socket: a request handled in a socket callback must use the time now, not the time of the
    /// loop's last batch. The test waits between two commands; the daemon's instants must be at least that far
    /// apart (its clock cannot run slower than the test's), or the budget would start early.
    @Test func B9_commandsFromTheSocketSeeTheTimeTheyArrive() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        let barrier = try daemon.client()
        #expect(try barrier.request(ControlRequest(command: "events")).subscribed == true)
        let started = ContinuousClock.now
        #expect(try daemon.cli("launch", Self.alpha).status == 0)
        Thread.sleep(forTimeInterval: 0.5)  // Setup, not an assertion: the gap the daemon must see.
        #expect(try daemon.cli("resign", Self.alpha).status == 0)
        let waited = ContinuousClock.now - started
        var instants: [String: Double] = [:]
        // The launch's two steps (L9), then the resignation.
        while instants.count < 3, let line = try barrier.readLine() {
            let event = try ControlClient.decode(ControlEventLine.self, line).event
            instants["\(event.from)->\(event.to)"] = event.atSeconds
        }
        let launched = try #require(instants["notRunning->inactive"])
        let resigned = try #require(instants["active->inactive"])
        #expect(
            resigned - launched >= 0.5,
            "launch at \(launched) s, resign at \(resigned) s; the test waited \(waited)"
        )
    }

    @Test func P4_sigintTerminatesEveryAppThenExits() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        _ = try daemon.cli("launch", Self.alpha)
        _ = try daemon.cli("launch", "com.example.beta")
        // L9: both launches done (active) before the lock and the stop.
        try waitUntil("both active\n\(daemon.output)") {
            try daemon.status(Self.alpha).state == "active" && daemon.status("com.example.beta").state == "active"
        }
        _ = try daemon.cli("lock", "com.example.beta")
        #expect(try daemon.stop(SIGINT) == 0, "\(daemon.output)")
        let output = daemon.output
        #expect(output.contains("SIGINT: stopping; terminating 2 running app(s)"), "\(output)")
        // The terminate rows: active gets willResignActive, didEnterBackground, willTerminate; inactive skips the
        // first.
        #expect(
            output.contains(
                "active -> notRunning  [terminated(shutdown)]  {willResignActive, didEnterBackground, willTerminate}"
            ),
            "\(output)"
        )
        #expect(
            output.contains("inactive -> notRunning  [terminated(shutdown)]  {didEnterBackground, willTerminate}"),
            "\(output)"
        )
        #expect(output.contains("runway daemon stopped: every app is notRunning"), "\(output)")
    }

    @Test(.enabled(if: getuid() == 0, "needs CAP_SYS_NICE (root) for SCHED_FIFO"))
    func loopRealtimePriorityPutsTheDaemonsLoopInFIFO() throws {
        let daemon = try DaemonProcess(
            settings:
                "<key>BackgroundTimeBudget</key><real>30</real><key>LoopRealtimePriority</key><integer>10</integer>"
        )
        defer { daemon.close() }
        try waitUntil("the daemon's header\n\(daemon.output)") { daemon.output.contains("loop thread:") }
        #expect(daemon.output.contains("  loop thread: SCHED_FIFO 10 (LoopRealtimePriority)"), "\(daemon.output)")
        // The kernel agrees: one thread of the daemon, its loop, is SCHED_FIFO (1) at 10 (`chrt -p` on every thread).
        let tasks = try FileManager.default.contentsOfDirectory(
            atPath: "/proc/\(daemon.process.processIdentifier)/task"
        )
        let fifo = tasks.compactMap { Int32($0) }.filter { tid in
            runway_thread_policy(tid) == 1 && runway_thread_priority(tid) == 10
        }
        #expect(fifo.count == 1, "threads at SCHED_FIFO 10: \(fifo) of \(tasks)")
        #expect(try daemon.stop() == 0, "\(daemon.output)")
    }

    @Test func K1_socketIsOwnerOnlyAndASecondDaemonIsRefused() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        let attributes = try FileManager.default.attributesOfItem(atPath: daemon.socket)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let second = try RunwayBinary.run(["run", "--config", daemon.config.path])
        #expect(second.status == 69, "\(second)")
        #expect(second.stderr.contains("another daemon is already serving this socket"), "\(second)")
        // The first daemon still serves.
        #expect(try daemon.request(ControlRequest(command: "status")).ok)
    }

    @Test func K1_badInputGetsErrorRepliesAndTheDaemonKeepsServing() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        let client = try daemon.client()
        func reply(_ text: String) throws -> ControlReply {
            try client.send(Array((text + "\n").utf8))
            let line = try #require(try client.readLine())
            return try ControlClient.decode(ControlReply.self, line)
        }
        var answer = try reply("this is not json")
        #expect(answer.error?.code == "invalidJSON")
        answer = try reply(#"{"command": 5}"#)
        #expect(
            answer.error == ControlErrorPayload(code: "invalidRequest", message: "field 'command': expected a string")
        )
        answer = try reply(#"{"app": "x"}"#)
        #expect(answer.error == ControlErrorPayload(code: "invalidRequest", message: "field 'command' is missing"))
        answer = try reply(#"{"v": 2, "command": "status"}"#)
        #expect(answer.error?.code == "unsupportedVersion")
        answer = try reply(#"{"command": "fly", "id": 7}"#)
        #expect(answer.error?.code == "unknownCommand")
        #expect(answer.error?.message.contains("unknown command 'fly'") == true)
        #expect(answer.id == 7)
        answer = try reply(#"{"command": "launch", "app": "com.example.nope"}"#)
        #expect(answer.error?.code == "unknownApp")
        answer = try reply(#"{"command": "launch"}"#)
        #expect(answer.error?.message == "field 'app': command 'launch' needs an app")
        answer = try reply(#"{"command": "extend", "app": "com.example.alpha", "seconds": -1}"#)
        #expect(answer.error?.message.contains("field 'seconds'") == true)

        // A 1 MiB line: one lineTooLong error, then the same connection goes on.
        answer = try reply(String(repeating: "x", count: 1 << 20))
        #expect(answer.error?.code == "lineTooLong")
        #expect(answer.error?.message.contains("65536 bytes") == true)
        answer = try reply(#"{"command": "status", "id": 8}"#)
        #expect(answer.ok && answer.id == 8)

        // Half a request, then the client disconnects.
        do {
            let half = try daemon.client()
            try half.send(Array(#"{"command": "sta"#.utf8))
        }

        // 200 clients at once: each gets a status reply or a clear tooManyClients refusal.
        var clients: [ControlClient] = []
        for _ in 0..<200 { clients.append(try daemon.client()) }
        for client in clients {
            // A refused client may already be closed by the daemon: its write fails, its refusal line is still there.
            try? client.send(ControlProtocol.encodedLine(ControlRequest(command: "status")))
        }
        var served = 0
        var refused = 0
        for client in clients {
            let line = try #require(try client.readLine())
            let answer = try ControlClient.decode(ControlReply.self, line)
            if answer.ok { served += 1 } else if answer.error?.code == "tooManyClients" { refused += 1 }
        }
        #expect(served + refused == 200)
        // 64 clients at most; the first client above, and the half-written one until the daemon sees it close, count.
        #expect(served >= 62 && served <= 64, "served \(served)")
        #expect(refused > 0, "beyond 64 clients the daemon refuses")
        clients.removeAll()

        // The daemon and the first client are unaffected.
        answer = try reply(#"{"command": "launch", "app": "com.example.alpha"}"#)
        #expect(answer.ok && answer.state == "inactive")
        try waitUntil("a fresh client to be served once the 200 are gone") {
            (try? daemon.request(ControlRequest(command: "status")))?.ok == true
        }
        #expect(try daemon.stop() == 0)
    }

    @Test(.enabled(if: getuid() == 0, "needs root to create a user and run a client as it"))
    func K1_peerWithAnotherUIDIsRefused() throws {
        let user = "runway-test"
        if (try? shell("/usr/bin/id", ["-u", user]))?.status != 0 {
            let added = try shell(
                "/usr/sbin/useradd",
                ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user]
            )
            try #require(added.status == 0, "useradd failed: \(added.output)")
        }
        let uid = try shell("/usr/bin/id", ["-u", user]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        let runway = try RunwayBinary.executable().path
        // Without privileges the 0600 socket refuses the connection outright.
        var result = try shell(
            "/usr/bin/setpriv",
            ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", runway, "status", "--socket", daemon.socket]
        )
        #expect(result.status == 77, "\(result.output)")
        #expect(result.output.contains("permission denied"), "\(result.output)")
        // With CAP_DAC_OVERRIDE the other uid can connect; SO_PEERCRED names it and the daemon refuses it.
        result = try shell(
            "/usr/bin/setpriv",
            [
                "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--inh-caps=+dac_override",
                "--ambient-caps=+dac_override", runway, "status", "--socket", daemon.socket,
            ]
        )
        #expect(result.status == 77, "\(result.output)")
        #expect(result.output.contains("peer uid \(uid) is neither the daemon's (0) nor root"), "\(result.output)")
        // Root is served.
        #expect(try daemon.request(ControlRequest(command: "status")).ok)
    }
}
