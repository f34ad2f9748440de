import Foundation
import RunwayControl
import RunwayTestKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// State restoration on a real daemon with a real protocol app (Behaviour.md section 10): a Python app that counts its
/// launches, preserving the count after each launch and logging what each launch restored. Purge, `kill -9` of the
/// daemon, a reboot (a new daemon on the same StateDirectory with another boot id), a daemon stop; discards on a
/// switcher kill and on a crash right after a restored launch; a torn or oversized state never replaces a good one.
@Suite(.serialized) struct RestorationDaemonTests {
    @Test func R2_aPurgedProcessAppComesBackWithItsCounter() throws {
        let fixture = try self.start(mode: "plain", bootID: "boot-1")
        let daemon = fixture.daemon
        defer { daemon.close() }
        let events = try BackgroundCommand(try RunwayBinary.executable(), ["events", "--socket", daemon.socket])
        defer { events.close() }
        try waitUntil("runway events to subscribe\n\(events.output)") { events.output.contains("subscribed") }
        let subscriber = try daemon.client()
        #expect(try subscriber.request(ControlRequest(command: "events")).subscribed == true)
        #expect(try daemon.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=none count=0")
        try fixture.waitFor("reply request=1")
        #expect(try daemon.status(fixture.app).preservedState == true)
        try self.suspend(fixture, on: daemon)
        #expect(try daemon.cli("purge").stdout.contains("purged \(fixture.app)"))
        try waitUntil("purged\n\(daemon.output)") { try daemon.status(fixture.app).state == "notRunning" }
        #expect(try daemon.status(fixture.app).lastRunEnding == "purged")
        #expect(try daemon.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=purged count=1")
        let status = try daemon.status(fixture.app)
        #expect(status.restoredFrom == "purged")
        #expect(try daemon.cli("status").stdout.contains("restored: purged"))
        #expect(daemon.output.contains("restored (last run: purged)"), "\(daemon.output)")
        try waitUntil("the restoring launch in runway events\n\(events.output)") {
            events.output.contains(
                "notRunning -> inactive  [command(launch)]  {didFinishLaunching}  restored (last run: purged)"
            )
        }
        // On the wire: the purge keeps the state, the launch restores it.
        var payloads: [TransitionPayload] = []
        while !payloads.contains(where: { $0.restoration != nil }), let line = try subscriber.readLine() {
            payloads.append(try ControlClient.decode(ControlEventLine.self, line).event)
        }
        let purge = payloads.first { $0.to == "notRunning" }
        #expect(purge?.runEnding == "purged" && purge?.preservedStateKept == true, "\(payloads)")
        #expect(payloads.last?.restoration == "purged" && payloads.last?.from == "notRunning", "\(payloads)")
        #expect(try daemon.stop() == 0)
    }

    @Test func R6_theCounterSurvivesKill9OfTheDaemonARebootAndAStop() throws {
        let fixture = try self.start(mode: "plain", bootID: "boot-1")
        let first = fixture.daemon
        defer { if first.process.isRunning { kill(first.process.processIdentifier, SIGKILL) } }
        #expect(try first.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("reply request=1")

        // kill -9: no ending is recorded; the next daemon, in the same boot, restores it as daemonKilled.
        let second = try self.restart(after: first)
        defer { if second.process.isRunning { kill(second.process.processIdentifier, SIGKILL) } }
        #expect(try second.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=daemonKilled count=1", in: second)
        try fixture.waitFor("reply request=1", count: 2, in: second)

        // A reboot: the daemon dies with the machine, which comes back with another boot id.
        let bootFile = (fixture.log as NSString).deletingLastPathComponent + "/boot_id"
        try "boot-2".write(toFile: bootFile, atomically: true, encoding: .utf8)
        let third = try self.restart(after: second)
        #expect(try third.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=reboot count=2", in: third)
        try fixture.waitFor("reply request=1", count: 3, in: third)

        // A clean stop records the ending: daemonRestart.
        #expect(try third.stop() == 0)
        let fourth = try DaemonProcess(restarting: third)
        defer { fourth.close() }
        #expect(try fourth.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=daemonRestart count=3", in: fourth)
        #expect(try fourth.stop() == 0)
    }

    @Test func R3_R4_aSwitcherKillAndACrashRightAfterARestoredLaunchDiscardTheState() throws {
        let fixture = try self.start(mode: "crash-on-restore", bootID: "boot-1")
        let daemon = fixture.daemon
        defer { daemon.close() }
        #expect(try daemon.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("reply request=1")
        try self.suspend(fixture, on: daemon)
        #expect(try daemon.cli("purge").status == 0)
        try waitUntil("purged\n\(daemon.output)") { try daemon.status(fixture.app).state == "notRunning" }
        // The restored launch crashes at once: the state is discarded, so the next launch starts from nothing.
        #expect(try daemon.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=purged count=1")
        try waitUntil("crashed\n\(daemon.output)") { try daemon.status(fixture.app).state == "notRunning" }
        #expect(try daemon.status(fixture.app).lastRunEnding == "crashedAfterRestore")
        #expect(try daemon.status(fixture.app).preservedState == nil)
        #expect(try daemon.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=none count=0", count: 2)
        try fixture.waitFor("reply request=1", count: 2)

        // A switcher kill discards the state it preserved.
        try self.suspend(fixture, on: daemon)
        #expect(try daemon.cli("switcher-kill", fixture.app).status == 0)
        try waitUntil("killed\n\(daemon.output)") { try daemon.status(fixture.app).state == "notRunning" }
        #expect(try daemon.status(fixture.app).preservedState == nil)
        #expect(try daemon.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=none count=0", count: 3)
        #expect(try daemon.stop() == 0)
    }

    @Test func R1_aTornOrOversizedStateNeverReplacesAGoodOneAndTheRefusalNamesTheLimit() throws {
        let fixture = try self.start(
            mode: "torn-and-big",
            settings: "<key>StateRestorationByteLimit</key><integer>4096</integer>",
            bootID: "boot-1"
        )
        let daemon = fixture.daemon
        defer { daemon.close() }
        #expect(try daemon.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("reply request=1")
        // The second 3,000-byte part crosses 4,096 bytes: refused by name as it grows.
        try fixture.waitFor("error request=3 code=stateTooLarge")
        #expect(
            fixture.lines.contains {
                $0.hasPrefix("error request=3") && $0.contains("StateRestorationByteLimit (4096")
            },
            "\(fixture.lines)"
        )
        // Requests 4 and 5 are the rest of the refused state, up to its final part: refused too, not stored.
        try fixture.waitFor("error request=4 code=stateTooLarge")
        try fixture.waitFor("error request=5 code=stateTooLarge")
        // Request 6 starts a new state, left unfinished when the run ends: dropped, never stored.
        try fixture.waitFor("reply request=6")
        try self.suspend(fixture, on: daemon)
        #expect(try daemon.cli("purge").status == 0)
        try waitUntil("purged\n\(daemon.output)") { try daemon.status(fixture.app).state == "notRunning" }
        #expect(try daemon.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=purged count=1")
        #expect(try daemon.stop() == 0)
    }

    @Test func R2_aOneMebibyteStateIsRestoredWithoutTrippingTheUnreadBytesLimit() throws {
        let fixture = try self.start(mode: "megabyte", bootID: "boot-1")
        let daemon = fixture.daemon
        defer { daemon.close() }
        #expect(try daemon.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("reply request=64")
        try self.suspend(fixture, on: daemon)
        #expect(try daemon.cli("purge").status == 0)
        try waitUntil("purged\n\(daemon.output)") { try daemon.status(fixture.app).state == "notRunning" }
        // Escaped, the state is 2 MiB of lines queued at once, twice ProtocolWriteQueueLimitBytes: allowed, as the
        // app reads them before it acknowledges the launch.
        #expect(try daemon.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=purged bytes=1048576 quotes=True")
        try waitUntil("active\n\(daemon.output)") { try daemon.status(fixture.app).state == "active" }
        #expect(try daemon.status(fixture.app).lastTermination == "memoryPressure", "the purge, not a violation")
        #expect(try daemon.stop() == 0)
    }

    @Test func R5_aStatePreservedUnderAnotherRunwayStateVersionIsDiscardedNotRestored() throws {
        let version = { (name: String) in "<key>RunwayStateVersion</key><string>\(name)</string>" }
        let fixture = try self.start(mode: "plain", bootID: "boot-1", keys: version("v1"))
        let first = fixture.daemon
        #expect(try first.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("reply request=1")
        #expect(try first.stop() == 0)
        // The app's new configuration says its state has another layout.
        let files = (fixture.log as NSString).deletingLastPathComponent
        try first.config.writeApp(
            "\(fixture.app).plist",
            identifier: fixture.app,
            Self.appKeys(files, mode: "plain", version("v2"))
        )
        let second = try DaemonProcess(restarting: first)
        defer { second.close() }
        #expect(second.output.contains("RunwayStateVersion \"v1\", the app now has \"v2\""), "\(second.output)")
        #expect(try second.status(fixture.app).preservedState == nil)
        #expect(try second.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=none count=0", count: 2, in: second)
        #expect(try second.stop() == 0)
    }

    @Test func R6_aDaemonKilledDuringARestoredRunIsTheEndingTheNextLaunchSees() throws {
        let fixture = try self.start(mode: "preserve-once", bootID: "boot-1")
        let first = fixture.daemon
        defer { if first.process.isRunning { kill(first.process.processIdentifier, SIGKILL) } }
        #expect(try first.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("reply request=1")
        try self.suspend(fixture, on: first)
        #expect(try first.cli("purge").status == 0)
        try waitUntil("purged\n\(first.output)") { try first.status(fixture.app).state == "notRunning" }
        // The restored run preserves nothing new; the daemon dies while it runs.
        #expect(try first.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=purged count=1")
        try waitUntil("active\n\(first.output)") { try first.status(fixture.app).state == "active" }
        let second = try self.restart(after: first)
        defer { second.close() }
        #expect(try second.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=daemonKilled count=1", in: second)
        #expect(try second.stop() == 0)
    }

    @Test func R7_anAppsDiscardStateRemovesTheStoredStateOnceAnswered() throws {
        let fixture = try self.start(mode: "discard", bootID: "boot-1")
        let daemon = fixture.daemon
        defer { daemon.close() }
        #expect(try daemon.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("reply request=1")
        try fixture.waitFor("reply request=2")
        #expect(try daemon.status(fixture.app).preservedState == nil)
        let directory = StateDirectory.preservedStateDirectory(directory: daemon.stateDirectory, socket: daemon.socket)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        #expect(files.isEmpty, "\(files)")
        try self.suspend(fixture, on: daemon)
        #expect(try daemon.cli("purge").status == 0)
        try waitUntil("purged\n\(daemon.output)") { try daemon.status(fixture.app).state == "notRunning" }
        #expect(try daemon.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=none count=0", count: 2)
        #expect(try daemon.stop() == 0)
    }

    @Test func R6_anAppAddedByAReloadRestoresTheStateItLeft() throws {
        let fixture = try self.start(mode: "plain", bootID: "boot-1")
        let first = fixture.daemon
        #expect(try first.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("reply request=1")
        #expect(try first.stop() == 0)
        // The app leaves the configuration, and the next daemon starts without it.
        let plist = first.config.path + "/Apps/\(fixture.app).plist"
        let keys = try String(contentsOfFile: plist, encoding: .utf8)
        try FileManager.default.removeItem(atPath: plist)
        let second = try DaemonProcess(restarting: first)
        defer { second.close() }
        // It comes back with a reload: its stored state restores at its launch.
        try keys.write(toFile: plist, atomically: true, encoding: .utf8)
        #expect(try second.cli("reload").status == 0)
        #expect(try second.status(fixture.app).preservedState == true)
        #expect(try second.cli("launch", fixture.app).status == 0)
        try fixture.waitFor("launch restoration=daemonRestart count=1", in: second)
        #expect(try second.stop() == 0)
    }
}
