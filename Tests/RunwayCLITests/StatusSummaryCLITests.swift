import Foundation
import RunwayControl
import Testing

/// `runway status --summary`, and a plain `runway status` of a fleet larger than `tableAppLimit`, which prints the
/// summary and how to list apps instead of every row; a small fleet keeps its table.
@Suite(.serialized) struct StatusSummaryCLITests {
    @Test func aSmallFleetKeepsItsTableAndSummaryCountsItsApps() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        #expect(try daemon.cli("launch", "com.example.alpha").status == 0)
        let table = try daemon.cli("status")
        #expect(table.status == 0, "\(table)")
        #expect(table.stdout.contains("com.example.beta"), "\(table)")
        #expect(!table.stdout.contains("apps:"), "\(table)")

        let summary = try daemon.cli("status", "--summary")
        #expect(summary.status == 0, "\(summary)")
        #expect(
            summary.stdout.contains("2 apps: 1 notRunning, 0 inactive, 1 active, 0 background, 0 suspended"),
            "\(summary)"
        )
        #expect(!summary.stdout.contains("com.example.beta"), "\(summary)")
        let json = try daemon.cli("status", "--summary", "--json")
        let reply = try ControlClient.decode(ControlReply.self, Array(json.stdout.utf8))
        #expect(reply.summary?.apps == 2)
        #expect(reply.summary?.running == 1)
        #expect(reply.apps == nil)
        #expect(try daemon.cli("status", "--summary", "--state", "active").status == 64)
    }

    @Test func aStateOrPatternTheDaemonWouldRefuseIsBadUsageNamingTheOption() throws {
        let daemon = try DaemonProcess(apps: ["com.example.alpha": ""])
        defer { daemon.close() }
        let state = try daemon.cli("status", "--state", "asleep")
        #expect(state.status == 64, "\(state)")
        #expect(state.stderr.contains("--state: unknown state 'asleep'"), "\(state)")
        let pattern = try daemon.cli("status", "--app", String(repeating: "x", count: 256))
        #expect(pattern.status == 64, "\(pattern)")
        #expect(pattern.stderr.contains("--app: expected a pattern of 1 to 255 bytes"), "\(pattern)")
    }

    @Test func aPlainStatusOfMoreThanTheTableLimitPrintsTheSummaryAndAllPrintsTheTable() throws {
        let count = 1_001
        var apps: [String: String] = [:]
        for number in 0..<count { apps["com.example.app\(number)"] = "" }
        let daemon = try DaemonProcess(apps: apps)
        defer { daemon.close() }
        let plain = try daemon.cli("status")
        #expect(plain.status == 0, "\(plain)")
        #expect(plain.stdout.contains("\(count) apps: \(count) notRunning"), "\(plain)")
        #expect(plain.stdout.contains("--all"), "\(plain)")
        #expect(!plain.stdout.contains("com.example.app0"), "\(plain)")

        let all = try daemon.cli("status", "--all")
        #expect(all.status == 0)
        #expect(all.stdout.split(separator: "\n").filter { $0.hasPrefix("com.example.app") }.count == count)
    }
}
