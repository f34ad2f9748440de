import Foundation
import RunwayControl
import RunwayTestKit
import Testing

// C2, C3, P4: a FIFO in Apps/ is refused by name at once, by `runway validate` and by a reload,
// and reading config never delays a stop.

@Suite("C3/P4: config files that are not regular files are refused at once; reading config never delays a stop")
struct ConfigReadingTests {
    @Test func validateRefusesAFIFOInAppsPromptly() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("com.example.alpha.plist", identifier: "com.example.alpha")
        let fifo = config.path + "/Apps/com.example.fifo.plist"
        try #require(mkfifo(fifo, 0o644) == 0)
        let started = ContinuousClock.now

        // `timeout` ends a validate that blocks (exit 124) so that the test fails instead of hanging.
        let result = try shell(
            "/usr/bin/timeout",
            ["20", try RunwayBinary.executable().path, "validate", "--config", config.path]
        )

        let elapsed = ContinuousClock.now - started
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("\(fifo): expected a readable regular file"), "\(result.output)")
        #expect(result.output.contains("found a FIFO (named pipe), not a regular file"), "\(result.output)")
        #expect(elapsed < .seconds(10), "validate took \(elapsed)")
    }

    @Test func P4_reloadWithAFIFOInAppsNeverDelaysSIGTERM() throws {
        let sleeper = "com.example.sleeper"
        let daemon = try DaemonProcess(
            apps: [sleeper: "<key>ProgramArguments</key><array><string>/bin/sleep</string><string>600</string></array>"]
        )
        var pid: Int32 = 0
        defer {
            if pid > 0 { kill(pid, SIGKILL) }
            daemon.close()
        }
        #expect(try daemon.cli("launch", sleeper).status == 0)
        pid = try #require(try daemon.status(sleeper).pid)
        let fifo = daemon.config.path + "/Apps/com.example.fifo.plist"
        try #require(mkfifo(fifo, 0o644) == 0)

        // `runway reload` answers at once, naming the FIFO; nothing is applied.
        let reload = try shell(
            "/usr/bin/timeout",
            ["15", try RunwayBinary.executable().path, "reload", "--socket", daemon.socket]
        )
        #expect(reload.status == 1, "\(reload.output)")
        #expect(reload.output.contains("\(fifo): expected a readable regular file"), "\(reload.output)")
        #expect(reload.output.contains("a FIFO (named pipe)"), "\(reload.output)")

        // SIGHUP reloads, and the SIGTERM right behind it stops the daemon and its app within the termination
        // grace (1 s) plus a generous margin.
        kill(daemon.process.processIdentifier, SIGHUP)
        kill(daemon.process.processIdentifier, SIGTERM)
        try waitUntil("the daemon to stop after SIGHUP then SIGTERM\n\(daemon.output)", timeout: .seconds(10)) {
            !daemon.process.isRunning
        }
        #expect(daemon.process.terminationStatus == 0, "\(daemon.output)")
        #expect(daemon.output.contains("runway daemon stopped: every app is notRunning"), "\(daemon.output)")
        #expect(kill(pid, 0) != 0 && errno == ESRCH, "the app (pid \(pid)) is gone")
    }
}
