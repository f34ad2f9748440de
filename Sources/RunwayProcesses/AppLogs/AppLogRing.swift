/// The last lines of one run of a process app's output, bounded by lines and by bytes (`AppLogLineLimit`,
/// `AppLogByteLimit` of `Runway.plist`): appending beyond either bound drops the oldest lines, and counts them.
/// A line longer than the byte bound (not possible with the shipped bounds: output lines are cut at
/// `ProcessOptions.outputLineLimitBytes` first) is cut to it with a marker, never dropped.
///
/// Bytes are the UTF-8 bytes of the lines' text; the line bound bounds the per-line overhead (a stamp, a
/// stream and a string header, about 40 bytes). A value: no I/O, no clock. Not thread-safe; the loop thread owns it.
package struct AppLogRing: Sendable {
    package let lineLimit: Int
    package let byteLimit: Int
    private var lines: [AppLogLine] = []
    /// Index in `lines` of the oldest line kept.
    private var head = 0
    /// Bytes of text held.
    package private(set) var bytes = 0
    /// Lines (and their bytes) dropped since the run started because a bound was reached.
    package private(set) var droppedLines = 0
    package private(set) var droppedBytes = 0

    package init(lineLimit: Int, byteLimit: Int) {
        precondition(lineLimit > 0 && byteLimit > 0, "ring bounds must be positive")
        self.lineLimit = lineLimit
        self.byteLimit = byteLimit
    }

    /// Lines held.
    package var count: Int { self.lines.count - self.head }

    /// Every line held, oldest first.
    package var all: [AppLogLine] { Array(self.lines[self.head...]) }

    /// The last `count` lines held (all of them when fewer), oldest first.
    package func last(_ count: Int) -> [AppLogLine] {
        Array(self.lines[max(self.head, self.lines.count - max(0, count))...])
    }

    /// Appends `line`, dropping the oldest lines while a bound is exceeded.
    package mutating func append(_ line: AppLogLine) {
        var line = line
        if line.text.utf8.count > self.byteLimit {
            let marker = " [runway: cut at AppLogByteLimit, \(self.byteLimit) bytes]"
            let keep = max(0, self.byteLimit - marker.utf8.count)
            line.text = String(decoding: line.text.utf8.prefix(keep), as: UTF8.self) + marker
        }
        let size = line.text.utf8.count
        while self.count > 0, self.count + 1 > self.lineLimit || self.bytes + size > self.byteLimit {
            let dropped = self.lines[self.head].text.utf8.count
            self.head += 1
            self.bytes -= dropped
            self.droppedLines += 1
            self.droppedBytes += dropped
        }
        if self.head >= 64, self.head * 2 >= self.lines.count {
            self.lines.removeFirst(self.head)
            self.head = 0
        }
        self.lines.append(line)
        self.bytes += size
    }
}
