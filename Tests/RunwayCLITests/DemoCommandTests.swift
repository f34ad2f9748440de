import Foundation
import Testing

/// `runway demo --config DIR` on the shipped configuration, run as a real process.
///
/// Expected instants come from the script in Sources/RunwayDemo/DemoScript.swift and the shipped Config/:
/// - every app launches at t=0;
/// - notes (the first plain app, by file name) goes Home at t=1 with no task, so it is suspended at once (S2);
///   it is summoned at t=2, begins "save-draft" and goes Home at t=3, ends the task at t=5 and is suspended
///   again at t=5 (S11);
/// - sync (the second plain app) begins "full-sync" and goes Home at t=1; its budget is 4 s
///   (RunwayBackgroundTimeBudget), so the deadline is t=1+4=5, and with ExpirationWarningLead 3 its expiration
///   handler is called at max(1, 5-3)=2 (B4); it ignores it and is terminated at t=5, budgetOverrun (B6, S12);
/// - uploader (UIApplicationExitsOnSuspend, drain) begins "upload" and goes Home at t=1, ends it at t=2 and is
///   terminated there instead of suspended (E1, S13); its 6 s budget never runs out;
/// - player (UIBackgroundModes) goes Home at t=2 and is never suspended (L7);
/// - weather (the third plain app) begins "export" and goes Home at t=1, and is killed in the switcher at t=2: it is
///   sent willTerminate and ends (S15);
/// - purge at BackgroundTimeBudget+10 = t=20 (S14, notes is the longest-suspended app), shutdown at t=21 (P4).
@Suite struct DemoCommandTests {
    /// One timeline line: `<instant> <bundle id>  <text>`.
    struct Event: CustomStringConvertible {
        var index: Int
        var instant: String
        var app: String
        var text: String
        var line: String
        var description: String { "line \(self.index): \(self.line)" }
    }

    static func events(_ lines: [String]) -> [Event] {
        lines.enumerated().compactMap { index, line in
            guard line.hasPrefix("t=") else { return nil }
            var rest = Substring(line)
            func token() -> String {
                rest = rest.drop { $0 == " " }
                let word = rest.prefix { $0 != " " }
                rest = rest.dropFirst(word.count)
                return String(word)
            }
            let instant = token()
            let app = token()
            return Event(
                index: index,
                instant: instant,
                app: app,
                text: String(rest.drop { $0 == " " }),
                line: line
            )
        }
    }

    /// Seconds of an instant written `t=12.345s`.
    static func seconds(_ instant: String) -> Double? {
        guard instant.hasPrefix("t="), instant.hasSuffix("s") else { return nil }
        return Double(instant.dropFirst(2).dropLast())
    }

    /// Guards the derivation above: if someone retunes Config/, this says why the instants below stopped
    /// matching rather than leaving a puzzling timeline diff.
    func requireShippedTimings() throws {
        try #require(try shippedPlistNumber("Runway.plist", "BackgroundTimeBudget") == 10)
        try #require(try shippedPlistNumber("Runway.plist", "ExpirationWarningLead") == 3)
        try #require(try shippedPlistNumber("Apps/com.example.sync.plist", "RunwayBackgroundTimeBudget") == 4)
        try #require(try shippedPlistNumber("Apps/com.example.uploader.plist", "RunwayBackgroundTimeBudget") == 6)
    }

    @Test func S12_demoShippedConfigShowsEveryOutcomeAtItsInstant() throws {
        try self.requireShippedTimings()
        let result = try RunwayBinary.run("demo", "--config", RunwayBinary.shippedConfig)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stderr.contains("demo check failed"), "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")

        let lines = result.stdoutLines
        let events = Self.events(lines)
        func find(_ app: String, _ text: String, _ occurrence: Int = 0) -> Event? {
            let matches = events.filter { $0.app == app && $0.text.contains(text) }
            return occurrence < matches.count ? matches[occurrence] : nil
        }

        // The roles the script picks from the shipped apps.
        #expect(lines.contains("  S2/S3/S11/S14 plain app: com.example.notes"), "\(result)")
        #expect(lines.contains("  S12 overrunning app: com.example.sync"), "\(result)")
        #expect(lines.contains("  S13 exits-on-suspend app: com.example.uploader"), "\(result)")
        #expect(lines.contains("  L7 background-mode app: com.example.player"), "\(result)")

        // S2: Home with no task, suspended at once.
        let notesSuspended = try #require(find("com.example.notes", "background -> suspended"), "\(result)")
        #expect(notesSuspended.instant == "t=1.000s", "\(notesSuspended)")
        // S11: the task ends in time, then suspended.
        let notesSuspendedAgain = try #require(find("com.example.notes", "background -> suspended", 1), "\(result)")
        #expect(notesSuspendedAgain.instant == "t=5.000s", "\(notesSuspendedAgain)")
        #expect(notesSuspendedAgain.text.contains("[noOutstandingTasks]"), "\(notesSuspendedAgain)")

        // B4: the expiration handler is called ExpirationWarningLead before the deadline.
        let syncWarned = try #require(find("com.example.sync", "expiration handler called"), "\(result)")
        #expect(syncWarned.instant == "t=2.000s", "\(syncWarned)")
        #expect(events.filter { $0.text.contains("expiration handler called") }.count == 1, "\(result)")

        // S13: the exits-on-suspend app is terminated where it would have been suspended.
        let uploaderExited = try #require(find("com.example.uploader", "[terminated(exitsOnSuspend)]"), "\(result)")
        #expect(uploaderExited.instant == "t=2.000s", "\(uploaderExited)")
        #expect(uploaderExited.text.hasPrefix("background -> notRunning"), "\(uploaderExited)")
        #expect(find("com.example.uploader", "-> suspended") == nil, "\(result)")

        // S12, B6: the task that ignored its warning is still running at the deadline: terminated.
        let syncKilled = try #require(find("com.example.sync", "[terminated(budgetOverrun)]"), "\(result)")
        #expect(syncKilled.instant == "t=5.000s", "\(syncKilled)")
        #expect(syncKilled.text.hasPrefix("background -> notRunning"), "\(syncKilled)")
        #expect(find("com.example.sync", "-> suspended") == nil, "\(result)")

        // S14: the purge takes the longest-suspended app; L7 and P4: the background-mode app is never
        // suspended and is stopped at shutdown.
        let notesPurged = try #require(find("com.example.notes", "[terminated(memoryPressure)]"), "\(result)")
        #expect(notesPurged.instant == "t=20.000s", "\(notesPurged)")
        let playerStopped = try #require(find("com.example.player", "[terminated(shutdown)]"), "\(result)")
        #expect(playerStopped.instant == "t=21.000s", "\(playerStopped)")
        #expect(find("com.example.player", "-> suspended") == nil, "\(result)")

        // S15: the app killed in the switcher while it holds a task gets willTerminate, then ends.
        #expect(lines.contains("  S15 app killed in the switcher: com.example.weather"), "\(result)")
        let weatherKilled = try #require(find("com.example.weather", "-> notRunning"), "\(result)")
        #expect(weatherKilled.instant == "t=2.000s", "\(weatherKilled)")
        #expect(
            weatherKilled.text.hasPrefix(
                "background -> notRunning  [terminated(requested)]  (switcherKill)  {willTerminate}"
            ),
            "\(weatherKilled)"
        )

        // Order. The uploader's exit (t=2) comes before the sync kill (t=5): its task ends at t=2, long before
        // the sync deadline.
        #expect(notesSuspended.index < syncWarned.index, "\(result)")
        #expect(syncWarned.index < syncKilled.index, "\(result)")
        #expect(uploaderExited.index < syncKilled.index, "\(result)")
        #expect(syncKilled.index < notesPurged.index, "\(result)")
        #expect(notesPurged.index < playerStopped.index, "\(result)")

        // The timeline runs forward in time.
        let instants = events.map { Self.seconds($0.instant) }
        #expect(!instants.contains(nil), "unparsable instant\n\(result)")
        let seconds = instants.compactMap { $0 }
        #expect(zip(seconds, seconds.dropFirst()).allSatisfy { $0 <= $1 }, "instants go backwards\n\(result)")

        // The verdict is the final line, after the whole timeline.
        let last = try #require(lines.last, "\(result)")
        #expect(last.hasPrefix("demo: every outcome matches the spec"), "\(result)")
        #expect(playerStopped.index < lines.count - 1, "\(result)")
    }

    @Test func S12_demoRunTwiceGivesByteIdenticalStdout() throws {
        let first = try RunwayBinary.run("demo", "--config", RunwayBinary.shippedConfig)
        let second = try RunwayBinary.run("demo", "--config", RunwayBinary.shippedConfig)
        #expect(first.status == 0, "\(first)")
        #expect(second.status == 0, "\(second)")
        #expect(!first.stdoutData.isEmpty, "\(first)")
        #expect(first.stdoutData == second.stdoutData, "first:\n\(first)\nsecond:\n\(second)")
    }
}
