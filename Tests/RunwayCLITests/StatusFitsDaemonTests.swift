import Foundation
import RunwayControl
import Testing

/// Against a real daemon: `runway status` fits 100 columns with the widest states (crash-looping, terminating)
/// whole and long app names cut, and a command that begins a termination replies with the state it left the app
/// in: `terminating`, until the app has exited.
@Suite struct StatusFitsDaemonTests {
    /// A name of 70 characters that ends in what tells the apps apart.
    static let prefix = "com.example.a-service-with-a-rather-long-bundle-identifier-for-its-"
    static let crashing = Self.prefix + "crash"
    /// Ignores SIGTERM: its termination runs until TerminationGrace (30 s) ends in SIGKILL.
    static let stubborn = Self.prefix + "stubborn"

    static func daemon() throws -> DaemonProcess {
        try DaemonProcess(
            apps: [
                Self.crashing: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                    + "<string>exit 3</string></array>"
                    + "<key>KeepAlive</key><true/><key>ThrottleInterval</key><real>30</real>",
                Self.stubborn: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                    + "<string>trap '' TERM; while :; do sleep 0.05; done</string></array>",
            ],
            settings: "<key>CrashLoopThreshold</key><integer>1</integer><key>TerminationGrace</key><real>30</real>"
        )
    }

    @Test func theWidestStatesFitOneHundredColumnsWhole_terminateRepliesTerminating() throws {
        let daemon = try Self.daemon()
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.crashing).status == 0)
        // One failure makes it crash-looping (CrashLoopThreshold 1); its restart waits ThrottleInterval, 30 s.
        try waitUntil("crash-looping\n\(daemon.output)") {
            let status = try daemon.status(Self.crashing)
            return status.crashLooping == true && status.state == "notRunning"
        }
        #expect(try daemon.cli("launch", Self.stubborn).status == 0)
        let pid = try #require(try daemon.status(Self.stubborn).pid)

        // The reply gives the state the command left the app in: a termination that waits for the app to exit.
        let terminate = try daemon.cli("terminate", Self.stubborn)
        #expect(terminate.status == 0, "\(terminate)")
        #expect(
            terminate.stdout
                == "\(Self.stubborn): terminating (requested, from active); notRunning once it has exited\n",
            "\(terminate)"
        )
        #expect(try daemon.cli("status", Self.stubborn).status == 15, "terminating")

        let table = try RunwayBinary.run(
            ["status", "--socket", daemon.socket],
            launcher: ["/usr/bin/env", "COLUMNS=100"]
        )
        #expect(table.status == 0, "\(table)")
        for line in table.stdoutLines { #expect(line.count <= 100, "\(line.count) columns: \(line)\n\(table)") }
        let header = try #require(table.stdoutLines.first { $0.hasPrefix("APP ") }, "\(table)")
        let stateColumn = header.distance(
            from: header.startIndex,
            to: try #require(header.range(of: "STATE")).lowerBound
        )
        for (ending, word) in [("crash ", "crash-looping"), ("stubborn ", "terminating")] {
            let row = try #require(table.stdoutLines.first { $0.contains(ending) }, "\(table)")
            #expect(row.hasPrefix("…"), "a long name is cut keeping its end\n\(table)")
            #expect(row.dropFirst(stateColumn).hasPrefix(word + " ("), "\(word)\n\(table)")
        }

        // SIGKILL ends the termination now rather than at the grace's end: then the app is notRunning.
        kill(pid, SIGKILL)
        try waitUntil("the stubborn app gone\n\(daemon.output)") {
            try daemon.status(Self.stubborn).state == "notRunning"
        }
        #expect(try daemon.stop() == 0)
    }
}
