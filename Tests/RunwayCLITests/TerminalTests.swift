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

        func start(_ command: String) throws {
            // remain-on-exit keeps the screen of a command that has finished; no `sleep` that a signal must end.
            let result = try shell(
                self.path,
                [
                    "-L", self.name, "-f", "/dev/null", "start-server", ";", "set-option", "-g", "remain-on-exit", "on",
                    ";",
                    "set-option", "-g", "default-size", "160x30", ";",
                    "new-session", "-d", "-x", "160", "-y", "30", command,
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
        #expect(column(header, "DEADLINE") == column(alpha, "t=30."), "\(screen)")
        #expect(alpha.contains(" 2") || alpha.contains(" 30.0s") || alpha.contains(" 29."), "budget left: \(alpha)")
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
