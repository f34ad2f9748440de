import CRunwayProcess
import Foundation
import Testing

/// The process state file's guarantee, kept while its rewrites are spaced during bursts: a child launched into a
/// quiet daemon is listed on the next loop turn, so a `kill -9` of the daemon right after the launch still leaves
/// the restarted daemon a file that ends it.
@Suite("A kill -9 right after a launch", .serialized)
struct LaunchThenKillTests {
    @Test("P2: a daemon killed right after a launch is followed by one that ends the launched child")
    func P2_killRightAfterALaunchStillEndsTheChild() throws {
        let app = "com.test.launchkill\(UUID().uuidString.prefix(6).lowercased())"
        let first = try DaemonProcess(
            apps: [app: "<key>ProgramArguments</key><array><string>/bin/sleep</string><string>1000</string></array>"],
            settings: "<key>SuspensionMechanism</key><string>signal</string>"
        )
        defer { if first.process.isRunning { kill(first.process.processIdentifier, SIGKILL) } }
        // A write a moment ago would space the next one: let the start's write age past the spacing first.
        Thread.sleep(forTimeInterval: 0.2)
        _ = try first.cli("launch", app)
        let main = try #require(try first.status(app).pid)
        let daemon = first.process.processIdentifier
        kill(daemon, SIGKILL)
        try waitUntil("the killed daemon to exit") { !PidFiles.isAlive(daemon) }
        try waitUntil("the killed daemon's socket to close") { (try? first.client()) == nil }
        #expect(PidFiles.isAlive(main), "kill -9 of the daemon should leave its app's process")

        let second = try DaemonProcess(restarting: first)
        defer { second.close() }
        #expect(!PidFiles.isAlive(main), "still alive after the restart: \(main)\n\(second.output)")
        #expect(try second.stop() == 0)
        _ = runway_reap_nonblocking(main)  // A zombie of this process, if it is a subreaper.
    }
}
