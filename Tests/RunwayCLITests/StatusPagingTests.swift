import Foundation
import RunwayControl
import Testing

/// `status` at scale on a real daemon (Docs/ControlProtocol.md, `status`): the filters, the pages of at most
/// `statusPageLimit` apps with `matched` and `next`, the CLI's `--state`, `--app`, `--limit`, `--after`, and the
/// CLI asking page after page when no `--limit` is given.
@Suite(.serialized) struct StatusPagingTests {
    /// A daemon with `count` embedded apps `com.example.app0` ... (stand-ins).
    static func daemon(apps count: Int) throws -> DaemonProcess {
        var apps: [String: String] = [:]
        for number in 0..<count { apps["com.example.app\(number)"] = "" }
        return try DaemonProcess(apps: apps)
    }

    static func apps(_ reply: ControlReply) -> [String] { (reply.apps ?? []).map(\.app) }

    @Test func pagesAndFiltersSayHowManyMatchedAndWhereTheNextPageStarts() throws {
        let daemon = try Self.daemon(apps: 30)
        defer { daemon.close() }
        for app in ["com.example.app1", "com.example.app12", "com.example.app20"] {
            #expect(try daemon.cli("launch", app).status == 0)
        }
        try waitUntil("three active apps") {
            try daemon.request(ControlRequest(command: "status", state: "active")).matched == 3
        }

        let first = try daemon.request(ControlRequest(command: "status", limit: 10))
        #expect(first.apps?.count == 10 && first.matched == 30, "\(first)")
        let second = try daemon.request(ControlRequest(command: "status", limit: 10, after: first.next))
        #expect(second.apps?.count == 10 && second.matched == 30, "\(second)")
        #expect(Set(Self.apps(first)).isDisjoint(with: Self.apps(second)), "\(first)\n\(second)")

        let active = try daemon.request(ControlRequest(command: "status", state: "active", appPattern: "*app1*"))
        #expect(Self.apps(active) == ["com.example.app1", "com.example.app12"], "\(active)")
        #expect(active.matched == 2 && active.next == nil, "\(active)")

        let table = try daemon.cli("status", "--state", "notRunning", "--app", "com.example.app2?", "--limit", "3")
        #expect(table.status == 0, "\(table)")
        // app20 is active: nine match, three shown.
        #expect(table.stdoutLines.filter { $0.hasPrefix("com.example.app2") }.count == 3, "\(table)")
        #expect(table.stdout.contains("shown 3 of 9 apps that match; next page: --limit 3 --after "), "\(table)")

        let refused = try daemon.request(ControlRequest(command: "status", limit: 1_001))
        #expect(refused.error?.code == "invalidRequest", "\(refused)")
        #expect(refused.error?.message.contains("(statusPageLimit)") == true, "\(refused)")
        let badState = try daemon.request(ControlRequest(command: "status", state: "running"))
        #expect(badState.error?.message.contains("field 'state'") == true, "\(badState)")
        let usage = try daemon.cli("status", "--limit", "1001")
        #expect(usage.status == 64 && usage.stderr.contains("statusPageLimit"), "\(usage)")
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    @Test func withoutALimitTheCLIShowsEveryPage() throws {
        // More apps than one reply lists: the daemon cuts at 1,000, the CLI asks for the rest.
        let daemon = try Self.daemon(apps: 1_005)
        defer { daemon.close() }
        let one = try daemon.request(ControlRequest(command: "status"))
        #expect(one.apps?.count == 1_000 && one.matched == 1_005 && one.next != nil, "\(one.matched ?? -1)")

        let result = try daemon.cli("status", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let reply = try JSONDecoder().decode(ControlReply.self, from: Data(result.stdout.utf8))
        #expect(reply.apps?.count == 1_005 && Set(Self.apps(reply)).count == 1_005)
        #expect(reply.matched == 1_005 && reply.next == nil)
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }

    @Test func watchShowsATransitionItLearnsFromTheEventStream() throws {
        let daemon = try Self.daemon(apps: 3)
        defer { daemon.close() }
        let watch = try CLIDaemonConventionsTests.Watch(["--socket", daemon.socket, "--json"])
        defer { watch.close() }
        try waitUntil("a first frame\n\(watch.stdout)") { !watch.stdout.isEmpty }
        #expect(try daemon.cli("launch", "com.example.app1").status == 0)
        // The watch asks again only for the app the events named; its next frames show it active.
        try waitUntil("app1 active in a frame\n\(watch.stdout)\n\(watch.stderr)") {
            watch.stdout.split(separator: "\n").contains { line in
                guard let reply = try? JSONDecoder().decode(ControlReply.self, from: Data(line.utf8)) else {
                    return false
                }
                return reply.apps?.first { $0.app == "com.example.app1" }?.state == "active"
                    && reply.apps?.count == 3
            }
        }
        #expect(try daemon.stop(SIGTERM) == 0, "\(daemon.output)")
    }
}
