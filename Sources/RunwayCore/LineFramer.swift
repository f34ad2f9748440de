/// Splits a byte stream into lines (`\n`-terminated, a trailing `\r` dropped) with a bound on line length,
/// for the JSON-lines protocols (A4, K1). Not thread-safe; one owner per stream.
///
/// A line longer than `maximumLineBytes` is reported once as `.tooLong` and its bytes are discarded up to
/// and including the next newline, so the framer never holds more than `maximumLineBytes` bytes. With
/// `keepsCutPrefix` (app output, where the start of a long line is worth keeping) the first `maximumLineBytes`
/// bytes are reported as a `.line` just before that `.tooLong`.
package struct LineFramer: Sendable {
    package enum Frame: Hashable, Sendable {
        /// A complete line, without its terminator.
        case line([UInt8])
        /// A line exceeded the limit; `bytesSeen` is how many bytes of it had arrived when it was cut.
        case tooLong(bytesSeen: Int)
    }

    package let maximumLineBytes: Int
    /// Reports the first `maximumLineBytes` bytes of a line that is too long as a `.line` before its `.tooLong`.
    package let keepsCutPrefix: Bool
    private var buffer: [UInt8] = []
    private var discarding = false

    package init(maximumLineBytes: Int, keepsCutPrefix: Bool = false) {
        precondition(maximumLineBytes > 0, "maximumLineBytes must be positive, got \(maximumLineBytes)")
        self.maximumLineBytes = maximumLineBytes
        self.keepsCutPrefix = keepsCutPrefix
    }

    /// Bytes held for an unfinished line.
    package var pendingBytes: Int { self.buffer.count }

    /// Feeds bytes; returns the frames they complete, in order.
    package mutating func append(_ bytes: some Collection<UInt8>) -> [Frame] {
        var frames: [Frame] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if self.discarding {
                    self.discarding = false
                } else {
                    if self.buffer.last == UInt8(ascii: "\r") { self.buffer.removeLast() }
                    frames.append(.line(self.buffer))
                }
                self.buffer.removeAll(keepingCapacity: true)
            } else if !self.discarding {
                if self.buffer.count == self.maximumLineBytes {
                    if self.keepsCutPrefix { frames.append(.line(self.buffer)) }
                    frames.append(.tooLong(bytesSeen: self.buffer.count + 1))
                    self.buffer.removeAll(keepingCapacity: false)
                    self.discarding = true
                } else {
                    self.buffer.append(byte)
                }
            }
        }
        return frames
    }

    /// The stream ended: an unfinished line (if any) is returned as a last line.
    package mutating func finish() -> [Frame] {
        defer {
            self.buffer = []
            self.discarding = false
        }
        return self.buffer.isEmpty || self.discarding ? [] : [.line(self.buffer)]
    }
}
