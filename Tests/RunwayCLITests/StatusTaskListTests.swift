import Foundation
import RunwayControl
import Testing

/// A `status` reply lists a bounded number of each app's tasks: an app chooses its tasks' names and may hold
/// `TaskLimitPerApp` of them, so with every task listed its names set the reply's size (1.6 MB for 1,000 names of
/// control characters, each written as `\u00XX`), encoded on the loop thread that serves deadlines. The count is
/// always there; the whole list comes when asked (`tasks: true`, `status --tasks`).
@Suite("status: a bounded task list", .serialized)
struct StatusTaskListTests {
    /// The most a reply with one app holding tasks may take: 16 tasks whose names are `TaskNameByteLimit` (256)
    /// control characters (6 bytes each in JSON), plus the id, age and keys of each, plus the rest of the reply.
    static let oneAppReplyByteBound = 16 * (6 * 256 + 64) + 4_096

    @Test func aReplyStaysBoundedWhateverTheTaskNamesAndTheFullListIsThereOnRequest() throws {
        let app = "com.example.hoarder"
        let daemon = try DaemonProcess(apps: [app: ""])
        defer { daemon.close() }
        #expect(try daemon.cli("launch", app).status == 0)
        let client = try daemon.client()
        let name = String(repeating: "\u{1}", count: 256)
        for _ in 0..<1_000 {
            let reply = try client.request(ControlRequest(command: "beginTask", app: app, task: name))
            try #require(reply.ok, "\(reply)")
        }

        try client.send(ControlProtocol.encodedLine(ControlRequest(command: "status")))
        let line = try #require(try client.readLine())
        #expect(line.count <= Self.oneAppReplyByteBound, "a plain status reply is \(line.count) bytes")
        let plain = try ControlClient.decode(ControlReply.self, line)
        let row = try #require(plain.apps?.first)
        #expect(row.tasks.count == 16)
        #expect(row.tasksTotal == 1_000)
        #expect(row.tasks.first?.name == name)

        let all = try client.request(ControlRequest(command: "status", app: app, tasks: true))
        #expect(all.apps?.first?.tasks.count == 1_000)
        #expect(all.apps?.first?.tasksTotal == 1_000)

        // The table says how many are not listed (the first one's name cut to fit its width); --tasks lists them.
        let table = try daemon.cli("status")
        #expect(table.stdout.contains("s), +999 more\n"), "\(table)")
        let json = try daemon.cli("status", "--tasks", "--json").stdout
        let listed = try ControlClient.decode(ControlReply.self, Array(json.utf8))
        #expect(listed.apps?.first?.tasks.count == 1_000)
        #expect(try daemon.stop() == 0)
    }
}
