import Foundation
import RunwayLocking

/// A one-line progress bar on standard error, redrawn at most ten times a second. Only made when standard
/// error is a terminal (`forStandardError()`), so redirected or piped output never contains it.
package final class ProgressBar: Sendable {
    private struct State {
        package var lastDrawn: ContinuousClock.Instant?
        package var drawn = false
    }

    private let state = RunwayLock(State())
    private static let width = 30

    private init() {}

    /// A bar if standard error is a terminal, else nil.
    package static func forStandardError() -> ProgressBar? {
        isatty(STDERR_FILENO) == 1 ? ProgressBar() : nil
    }

    /// Shows `label` and `done` of `total`; skipped if the last redraw was under 100 ms ago.
    package func update(_ label: String, done: Int, total: Int) {
        let now = ContinuousClock.now
        let due = self.state.withLock { state -> Bool in
            if let last = state.lastDrawn, now - last < .milliseconds(100) { return false }
            state.lastDrawn = now
            state.drawn = true
            return true
        }
        guard due else { return }
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int(fraction * Double(Self.width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: Self.width - filled)
        let percent = Int(fraction * 100)
        Self.write("\r\u{1B}[2K\(label) [\(bar)] \(percent)% \(done)/\(total)")
    }

    /// Clears the line, if anything was drawn.
    package func finish() {
        let drawn = self.state.withLock { state in
            defer { state = State() }
            return state.drawn
        }
        if drawn { Self.write("\r\u{1B}[2K") }
    }

    private static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
