import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// How many columns the status table may take: `COLUMNS` when it is a positive number, else the width of the
/// terminal standard output is on (TIOCGWINSZ), else `fallback` (output to a pipe or a file). Documented in
/// `runway status --help` and Docs/Commands.md (Decision 281).
///
/// Read at each use (`status --watch` reads it at each redraw, so a resized terminal gets a table that fits).
/// Any thread.
enum TerminalWidth {
    /// The width of output that goes to no terminal and has no `COLUMNS`: 100 columns.
    static let fallback = 100

    /// The width to fit, in columns.
    ///
    /// - Parameters:
    ///   - environment: Where `COLUMNS` is looked up; this process's environment by default.
    ///   - descriptor: The descriptor whose terminal is asked; standard output by default.
    static func columns(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        descriptor: Int32 = STDOUT_FILENO
    ) -> Int {
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        var size = winsize()
        if isatty(descriptor) == 1, ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return Self.fallback
    }
}
