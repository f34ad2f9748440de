import Foundation
import RunwayTestKit
import Testing

/// The daemon's own log: `--log-level` over `LogLevel`, `--log-format json` / `LogFormat` (Docs/Operations.md).
@Suite(.serialized) struct DaemonLoggingTests {
    static let alpha = "com.example.alpha"

    /// JSON lines (from the JSON lines of the daemon's output) decoded as objects.
    static func jsonLines(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func transitionsAreJSONLinesAtInfoAndTheFlagWinsOverThePlist() throws {
        // Runway.plist says critical and text; the flags say info and json, and win.
        let daemon = try DaemonProcess(
            settings: "<key>LogLevel</key><string>critical</string><key>LogFormat</key><string>text</string>",
            arguments: ["--log-level", "info", "--log-format", "json"]
        )
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.alpha).status == 0)
        try waitUntil("a JSON transition line\n\(daemon.output)") {
            Self.jsonLines(daemon.output).contains { $0["message"] as? String == "transition" }
        }
        let line = try #require(Self.jsonLines(daemon.output).first { $0["message"] as? String == "transition" })
        #expect(line["level"] as? String == "info")
        #expect(line["label"] as? String == "runway")
        let time = try #require(line["time"] as? String)
        #expect(time.hasSuffix("Z") && time.count == "2026-11-23T12:00:00.123456Z".count, "\(time)")
        let metadata = try #require(line["metadata"] as? [String: Any])
        #expect(metadata["app"] as? String == Self.alpha)
        #expect(metadata["from"] as? String == "notRunning")
        #expect(metadata["to"] as? String == "inactive")
        // Every line of the log is one JSON object (the timeline's text lines start with "t=").
        for text in daemon.output.split(separator: "\n") where !text.hasPrefix("t=") && text.hasPrefix("{") {
            #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil, "\(text)")
        }
        #expect(try daemon.stop(SIGTERM) == 0)
    }

    @Test func appOutputIsInTheAppsLogButNotInTheDaemonsLogAtInfo() throws {
        // An app that prints a marker (with an escape sequence) and keeps running.
        let app = "com.example.talker"
        let daemon = try DaemonProcess(
            apps: [
                app: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                    + "<string>printf 'marker-4711 \\033[31mred\\n'; exec sleep 30</string></array>"
            ],
            arguments: ["--log-level", "info"]
        )
        defer { daemon.close() }
        #expect(try daemon.cli("launch", app).status == 0)
        try waitUntil("the marker in runway logs\n\(daemon.output)") {
            try daemon.cli("logs", app).stdout.contains("marker-4711")
        }
        // Transitions are there at info, the app's own lines are not (they are debug: `runway logs` has them).
        #expect(daemon.output.contains("transition"), "\(daemon.output)")
        #expect(!daemon.output.contains("marker-4711"), "\(daemon.output)")
        #expect(!daemon.output.contains("\u{1B}[31m"), "no escape sequence of the app reaches the daemon's log")
        #expect(try daemon.stop(SIGTERM) == 0)
    }

    @Test func thePlistLevelAndFormatApplyWithoutAFlag() throws {
        // info is below the default notice: transitions appear only because LogLevel says info.
        let daemon = try DaemonProcess(
            settings: "<key>LogLevel</key><string>info</string><key>LogFormat</key><string>json</string>"
        )
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.alpha).status == 0)
        try waitUntil("alpha active\n\(daemon.output)") { try daemon.status(Self.alpha).state == "active" }
        #expect(try daemon.cli("terminate", Self.alpha).status == 0)
        #expect(try daemon.stop(SIGTERM) == 0)
        let transitions = Self.jsonLines(daemon.output).filter { $0["message"] as? String == "transition" }
        let moves = transitions.compactMap { $0["metadata"] as? [String: Any] }.map {
            "\($0["from"] as? String ?? "?")->\($0["to"] as? String ?? "?")"
        }
        #expect(moves == ["notRunning->inactive", "inactive->active", "active->notRunning"], "\(daemon.output)")
    }

    @Test func withoutLevelOrFlagTransitionsAreNotLogged() throws {
        let daemon = try DaemonProcess(settings: "<key>LogFormat</key><string>json</string>")
        defer { daemon.close() }
        #expect(try daemon.cli("launch", Self.alpha).status == 0)
        #expect(try daemon.stop(SIGTERM) == 0)
        // notice by default: no transition in the log; the timeline (standard output) still shows it.
        #expect(
            !Self.jsonLines(daemon.output).contains { $0["message"] as? String == "transition" },
            "\(daemon.output)"
        )
        #expect(daemon.output.contains("notRunning -> inactive"), "\(daemon.output)")
    }

    @Test func aReloadListsAChangedLogLevelAsNeedingARestart() throws {
        let daemon = try DaemonProcess(settings: "")
        defer { daemon.close() }
        // The harness's Runway.plist with LogLevel added: only the metrics and log settings differ.
        try daemon.config.write(
            "Runway.plist",
            plistXML(
                "<key>LogLevel</key><string>debug</string><key>MemoryPressureSource</key><string>off</string>"
                    + "<key>TerminationGrace</key><real>1</real>"
                    + "<key>ControlSocket</key><string>\(daemon.socket)</string>"
            )
        )
        let result = try daemon.cli("reload", "--dry-run")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("metrics or log settings in Runway.plist changed"), "\(result)")
        #expect(!result.stdout.contains("daemon settings in Runway.plist changed"), "\(result)")
    }
}
