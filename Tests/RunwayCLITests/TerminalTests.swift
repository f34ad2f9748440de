import Foundation
import RunwayControl
import Testing

/// `runway status` on a real terminal: tmux gives it a pty, and the test reads the screen tmux renders.
@Suite(.serialized) struct TerminalTests {
    static let tmuxPath = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// A tmux server of its own (`-L`), killed at the end.
    final class Tmux {
        let name = "runway-test-\(UUID().uuidString.prefix(8))"
        let path: String

        init(path: String) { self.path = path }

        func close() { _ = try? shell(self.path, ["-L", self.name, "kill-server"]) }

        func start(_ command: String, columns: Int = 160) throws {
            // remain-on-exit keeps the screen of a command that has finished; no `sleep` that a signal must end.
            let result = try shell(
                self.path,
                [
                    "-L", self.name, "-f", "/dev/null", "start-server", ";", "set-option", "-g", "remain-on-exit", "on",
                    ";",
                    "set-option", "-g", "default-size", "\(columns)x30", ";",
                    "new-session", "-d", "-x", "\(columns)", "-y", "30", command,
                ]
            )
            try #require(result.status == 0, "tmux new-session failed: \(result.output)")
        }

        /// The visible screen, one string per row.
        func screen() throws -> [String] {
            try shell(self.path, ["-L", self.name, "capture-pane", "-p", "-J", "-S", "-"]).output.components(
                separatedBy: "\n"
            )
        }
    }

    @Test(.enabled(if: tmuxPath != nil, "tmux is not installed (.ci/run installs it)"))
    func K2_statusTableOnATerminal() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        _ = try daemon.cli("launch", "com.example.alpha")
        _ = try daemon.cli("begin-task", "com.example.alpha", "upload")
        _ = try daemon.cli("home", "com.example.alpha")
        let runway = try RunwayBinary.executable().path
        let tmux = Tmux(path: try #require(Self.tmuxPath))
        defer { tmux.close() }
        try tmux.start("\(runway) status --socket \(daemon.socket)")
        var screen: [String] = []
        try waitUntil("the status table on the tmux screen") {
            screen = try tmux.screen()
            return screen.contains { $0.hasPrefix("com.example.beta") }
        }
        let header = try #require(screen.first { $0.hasPrefix("APP") })
        let alpha = try #require(screen.first { $0.hasPrefix("com.example.alpha") })
        let beta = try #require(screen.first { $0.hasPrefix("com.example.beta") })
        #expect(screen.first?.hasPrefix("runway daemon pid ") == true, "\(screen)")
        // Columns line up under their headers.
        func column(_ line: String, _ text: String) -> Int? {
            line.range(of: text).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
        }
        #expect(column(header, "STATE") == column(alpha, "background"), "\(screen)")
        #expect(column(header, "STATE") == column(beta, "notRunning"), "\(screen)")
        #expect(column(header, "TASKS") == column(alpha, "#1 upload ("), "\(screen)")
        let budget = alpha.dropFirst(try #require(column(header, "BUDGET")))
        #expect(budget.hasPrefix("29.") || budget.hasPrefix("30.0s"), "budget left: \(screen)")
    }

    @Test(.enabled(if: tmuxPath != nil, "tmux is not installed (.ci/run installs it)"))
    func K2_statusFitsATerminalOfOneHundredColumns() throws {
        // Names of 70 characters and more, which would make the table 150 columns wide.
        let prefix = "com.example.a-service-with-a-rather-long-bundle-identifier-for-its-"
        let daemon = try DaemonProcess(apps: [prefix + "uploads": "", prefix + "downloads": ""])
        defer { daemon.close() }
        _ = try daemon.cli("launch", prefix + "uploads")
        _ = try daemon.cli("begin-task", prefix + "uploads", "a-task-with-a-long-name-of-its-own")
        _ = try daemon.cli("home", prefix + "uploads")
        let runway = try RunwayBinary.executable().path
        let tmux = Tmux(path: try #require(Self.tmuxPath))
        defer { tmux.close() }
        try tmux.start("\(runway) status --socket \(daemon.socket)", columns: 100)
        var screen: [String] = []
        try waitUntil("the status table on the tmux screen") {
            screen = try tmux.screen()
            return screen.contains { $0.hasPrefix("…") && $0.contains("downloads ") }
        }
        // capture-pane -J joins a wrapped line: every line is at most 100 columns, so nothing wrapped.
        for line in screen {
            let text = line.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
            #expect(text.count <= 100, "\(text.count) columns: \(text)\n\(screen.joined(separator: "\n"))")
        }
        let header = try #require(screen.first { $0.hasPrefix("APP ") }, "\(screen)")
        let uploads = try #require(screen.first { $0.contains("uploads ") }, "\(screen)")
        let state = try #require(header.range(of: "STATE")).lowerBound
        #expect(uploads.dropFirst(header.distance(from: header.startIndex, to: state)).hasPrefix("background "))
        // The tasks are abbreviated first, to their count.
        #expect(uploads.hasSuffix("  1 task"), "\(screen)")
    }

    @Test(.enabled(if: tmuxPath != nil, "tmux is not installed (.ci/run installs it)"))
    func K2_statusWatchRedrawsInPlace() throws {
        let daemon = try DaemonProcess()
        defer { daemon.close() }
        let runway = try RunwayBinary.executable().path
        let tmux = Tmux(path: try #require(Self.tmuxPath))
        defer { tmux.close() }
        try tmux.start("\(runway) status --watch --interval 0.2 --socket \(daemon.socket)")
        try waitUntil("the first table") { try tmux.screen().contains { $0.hasPrefix("com.example.alpha") } }
        _ = try daemon.cli("launch", "com.example.alpha")
        var screen: [String] = []
        try waitUntil("the redrawn table showing alpha active") {
            screen = try tmux.screen()
            return screen.contains { $0.hasPrefix("com.example.alpha") && $0.contains(" active ") }
        }
        // Redrawn in place: one table on the screen, at the top under the time header, never scrolled copies below.
        #expect(screen.filter { $0.hasPrefix("APP ") }.count == 1, "\(screen)")
        #expect(screen.first?.hasPrefix("Every 0.2s: runway status    ") == true, "\(screen)")
        #expect(screen.dropFirst().first?.hasPrefix("runway daemon pid ") == true, "\(screen)")
        #expect(screen.filter { $0.hasPrefix("com.example.alpha") }.count == 1, "\(screen)")
    }
}
