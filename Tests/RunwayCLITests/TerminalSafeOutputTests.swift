import Foundation
import RunwayControl
import Testing

/// What an app prints reaches an operator's terminal through `runway logs` and `runway status APP`: its control
/// characters are shown as `\xHH`, never sent to the terminal raw. `--json` keeps the
/// text exact. Real daemon, real child.
@Suite("App text on the operator's terminal", .serialized)
struct TerminalSafeOutputTests {
    @Test func controlCharactersAnAppPrintsAreShownEscapedInLogsAndStatusButExactInJSON() throws {
        let app = "com.example.escapes"
        // ESC ] 0 ; title BEL (retitles a terminal), a colour, a carriage return that would hide the stamp, a tab.
        let script = "printf 'a\\033]0;pwned\\007b\\033[31mred\\rc\\td\\n'; exit 3"
        let daemon = try DaemonProcess(apps: [
            app: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                + "<string>\(script.xmlEscaped)</string></array>"
        ])
        defer { daemon.close() }
        #expect(try daemon.cli("launch", app).status == 0)
        try waitUntil("the app to exit\n\(daemon.output)") {
            try daemon.status(app).lastTermination == "exited(3)"
        }
        let shown = #"a\x1B]0;pwned\x07b\x1B[31mred\x0Dc"# + "\td"

        let logs = try daemon.cli("logs", app)
        #expect(logs.status == 0, "\(logs)")
        #expect(logs.stdout.hasSuffix(" stdout \(shown)\n"), "\(logs)")
        #expect(!logs.stdout.contains("\u{1B}") && !logs.stdout.contains("\r"), "\(logs)")

        let describe = try daemon.cli("status", app)
        #expect(describe.stdout.contains(" stdout \(shown)\n"), "\(describe)")
        #expect(!describe.stdout.contains("\u{1B}") && !describe.stdout.contains("\r"), "\(describe)")

        let json = try daemon.cli("logs", app, "--json")
        let line = try #require(json.stdoutLines.last)
        let decoded = try JSONDecoder().decode([String: String].self, from: Data(line.utf8))
        #expect(decoded["line"] == "a\u{1B}]0;pwned\u{07}b\u{1B}[31mred\rc\td", "\(json)")
    }

    @Test func aTaskNameWithControlCharactersIsShownEscapedInTheStatusTable() throws {
        let app = "com.example.tasks"
        let daemon = try DaemonProcess(apps: [
            app: "<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string>"
                + "<string>trap 'exit 0' TERM; while :; do sleep 0.05; done</string></array>"
        ])
        defer { daemon.close() }
        #expect(try daemon.cli("launch", app).status == 0)
        #expect(try daemon.cli("begin-task", app, "x\u{1B}[2Jy").status == 0)
        let table = try daemon.cli("status")
        #expect(table.stdout.contains(#"x\x1B[2Jy"#), "\(table)")
        #expect(!table.stdout.contains("\u{1B}"), "\(table)")
    }
}
