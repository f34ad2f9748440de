import Foundation
import RunwayControl
import Testing

@testable import RunwayCLI

/// The status table fits its width (100 columns unless the terminal or COLUMNS says otherwise): a state word is
/// never cut; the tasks are abbreviated first, then the detail after the state and the app's name, the wider first.
/// Pure: replies made from JSON, no daemon.
@Suite struct StatusTableLayoutTests {
    /// An app object of a status reply: `fields` over a running embedded app with no tasks.
    static func app(_ name: String, _ fields: [String: Any] = [:]) -> [String: Any] {
        var object: [String: Any] = [
            "app": name, "kind": "embedded", "state": "active", "timeInStateSeconds": 1.5, "tasks": [],
            "heldNotifications": 0, "restarts": 0, "ageSeconds": 12.0,
        ]
        object.merge(fields) { $1 }
        return object
    }

    static func reply(_ apps: [[String: Any]], daemon: Bool = true) throws -> ControlReply {
        var object: [String: Any] = ["v": 1, "ok": true, "apps": apps]
        if daemon {
            object["daemon"] = [
                "pid": 4_194_304, "config": "/etc/runway/a/long/configuration/directory/somewhere/deep",
                "socket": "/run/runway/control.sock", "uptimeSeconds": 90_061.0,
            ]
        }
        return try JSONDecoder().decode(ControlReply.self, from: JSONSerialization.data(withJSONObject: object))
    }

    /// The widest states with their details, long names and a long task list.
    static func widest() throws -> ControlReply {
        let long = "com.example.a-rather-long-bundle-identifier.for-a-service-with-a-long-name"
        return try Self.reply([
            Self.app(
                long + ".looping",
                [
                    "state": "notRunning", "kind": "process", "crashLooping": true, "nextRestart": 12,
                    "nextRestartInSeconds": 0.8, "restarts": 11, "consecutiveFailures": 11,
                    "lastTermination": "spawnFailed(ProgramArguments[0] '/nonexistent/"
                        + String(repeating: "p", count: 200)
                        + "' does not exist)",
                ]
            ),
            Self.app(
                long + ".ending",
                [
                    "state": "background", "kind": "process", "pid": 4_194_303, "terminating": "budgetOverrun",
                    "tasks": (1...16).map { ["id": $0, "name": "upload-\($0)", "ageSeconds": 4_000.0] },
                    "tasksTotal": 1_000,
                ]
            ),
            Self.app(
                long + ".frozen",
                [
                    "state": "suspended", "kind": "process", "pid": 77, "suspension": "freezer",
                    "suspensionConfirmed": false, "timeInStateSeconds": 200_000.0,
                ]
            ),
            Self.app("com.example.short", ["restoredFrom": "purged"]),
        ])
    }

    /// The column where `text` starts in `line`, in characters.
    static func column(_ line: String, _ text: String) -> Int? {
        line.range(of: text).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
    }

    @Test func theWidestStatesAndLongNamesFitOneHundredColumnsWithTheStateWordsWhole() throws {
        let text = StatusTable.render(try Self.widest(), width: 100)
        let lines = text.split(separator: "\n").map(String.init)
        for line in lines { #expect(line.count <= 100, "\(line.count) columns: \(line)\n\(text)") }
        let header = try #require(lines.first { $0.hasPrefix("APP ") }, "\(text)")
        let rows = Array(lines.drop { !$0.hasPrefix("APP ") }.dropFirst())
        #expect(rows.count == 4, "\(text)")
        // Every state word is whole and starts under STATE, its detail cut with "…" where it does not fit.
        let words = ["crash-looping (", "terminating (", "suspended (", "active ("]
        for (row, word) in zip(rows, words) {
            #expect(Self.column(row, word) == Self.column(header, "STATE"), "\(word) in\n\(text)")
        }
        #expect(
            rows.map { $0.prefix(44) } == [
                "…a-long-name.looping  crash-looping (la…)  -",
                "…-a-long-name.ending  terminating (budg…)  4",
                "…-a-long-name.frozen  suspended (unconf…)  7",
                "com.example.short     active (restored:…)  -",
            ],
            "\(text)"
        )
        #expect(Self.column(rows[1], "4194303") == Self.column(header, "PID"), "\(text)")
        #expect(Self.column(rows[2], "2d07h") == Self.column(header, "IN STATE"), "\(text)")
        // The long names are cut keeping their ends, which tell them apart.
        #expect(rows[0].hasPrefix("…") && rows[0].contains(".looping "), "\(text)")
        #expect(rows[3].hasPrefix("com.example.short "), "a short name is whole\n\(text)")
        // The tasks say how many there are, whatever else fits.
        #expect(rows[1].hasSuffix("1000 tasks"), "\(text)")
        // The daemon's line fits too, its configuration path cut keeping its end; the socket whole.
        let daemon = try #require(lines.first, "\(text)")
        #expect(
            daemon.hasPrefix("runway daemon pid 4194304, config …")
                && daemon.hasSuffix("socket /run/runway/control.sock")
        )
    }

    @Test func theTasksAreCutFirstThenTheWiderOfTheStateDetailAndTheName() throws {
        let name = "com.example.uploader-with-a-long-name"
        let reply = try Self.reply(
            [
                Self.app(
                    name,
                    [
                        "state": "notRunning", "lastTermination": "exited(3)", "nextRestart": 2,
                        "nextRestartInSeconds": 0.4,
                        "tasks": [["id": 1, "name": "export", "ageSeconds": 1.4]],
                    ]
                ),
                Self.app(
                    "com.example.sync",
                    ["tasks": (1...3).map { ["id": $0, "name": "upload", "ageSeconds": 1.4] }]
                ),
            ],
            daemon: false
        )
        func rows(_ width: Int) -> [String] {
            StatusTable.render(reply, width: width).split(separator: "\n").map(String.init)
        }
        let natural = try #require(rows(1_000).map(\.count).max())
        // Whole at its natural width.
        #expect(rows(natural)[1].contains("notRunning (last: exited(3), restart #2 in 0.4s)"), "\(rows(natural))")
        #expect(rows(natural)[2].hasSuffix("#1 upload (1.4s), #2 upload (1.4s), #3 upload (1.4s)"))
        // A little narrower: only the tasks give way, the first ones kept and the rest counted.
        let tasksCut = rows(natural - 10)
        #expect(tasksCut[1].hasPrefix(name + "  notRunning (last: exited(3), restart #2 in 0.4s)  "), "\(tasksCut)")
        #expect(tasksCut[2].hasSuffix("  #1 upload (1.4s), +2 more"), "\(tasksCut)")
        // Narrower: the tasks are counted, then the wider of the state's detail and the name is cut; the state
        // word stays whole, alone when not even `(…)` fits.
        #expect(
            rows(100) == [
                "APP                      STATE                    PID  RESTARTS  AGE    IN STATE  BUDGET     TASKS",
                "…oader-with-a-long-name  notRunning (last: exi…)  -    0         12.0s  1.5s      -          1 task",
                "com.example.sync         active                   -    0         12.0s  1.5s      unlimited  3 tasks",
            ]
        )
        #expect(
            rows(80) == [
                "APP               STATE       PID  RESTARTS  AGE    IN STATE  BUDGET     TASKS",
                "…ith-a-long-name  notRunning  -    0         12.0s  1.5s      -          1 task",
                "com.example.sync  active      -    0         12.0s  1.5s      unlimited  3 tasks",
            ]
        )
        // Narrower than the narrowest table (names at 12 characters): it stops there, and the terminal wraps it.
        #expect(
            rows(40) == rows(76) && rows(76).allSatisfy { $0.count <= 76 } && rows(76)[1].hasPrefix("…a-long-name  ")
        )
    }

    @Test func aTabInATaskNameIsShownEscapedSoTheColumnsStayInPlace() throws {
        let reply = try Self.reply(
            [Self.app("com.example.tabs", ["tasks": [["id": 1, "name": "a\tb", "ageSeconds": 1.0]]])],
            daemon: false
        )
        let text = StatusTable.render(reply, width: 100)
        #expect(!text.contains("\t") && text.contains("#1 a\\x09b (1.0s)"), "\(text)")
    }

    @Test func timesOverAMinuteTakeAtMostSixCharacters() {
        #expect(StatusTable.duration(0) == "0.0s")
        #expect(StatusTable.duration(59.94) == "59.9s")
        #expect(StatusTable.duration(61) == "1m01s")
        #expect(StatusTable.duration(3_599.9) == "59m59s")
        #expect(StatusTable.duration(3_600) == "1h00m")
        #expect(StatusTable.duration(86_399) == "23h59m")
        #expect(StatusTable.duration(90_061) == "1d01h")
        #expect(StatusTable.duration(8_639_999) == "99d23h")
    }

    @Test func theWidthIsColumnsElseTheTerminalElseOneHundred() throws {
        #expect(TerminalWidth.columns(environment: ["COLUMNS": "132"]) == 132)
        // Not a terminal (a file), and COLUMNS unset or not a positive number: 100.
        let file = FileHandle(forWritingAtPath: "/dev/null")
        let descriptor = try #require(file).fileDescriptor
        #expect(TerminalWidth.columns(environment: [:], descriptor: descriptor) == 100)
        #expect(TerminalWidth.columns(environment: ["COLUMNS": "0"], descriptor: descriptor) == 100)
        #expect(TerminalWidth.columns(environment: ["COLUMNS": "wide"], descriptor: descriptor) == 100)
    }
}
