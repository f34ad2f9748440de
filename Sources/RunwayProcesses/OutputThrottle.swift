import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The output rule of one child's stdout or stderr: how much of it the loop reads and frames per loop turn
/// (`ProcessOptions.outputBytesPerTurn`, `outputLinesPerTurn`), so that a child that writes without pause costs
/// the loop a bounded slice of each turn and deadlines keep their precision.
///
/// A turn is one value of the loop's millisecond clock (`uv_now`, constant during a turn), so the budget holds
/// per turn and per millisecond. Bytes are bounded before the read (`readableBytes` sizes the read buffer);
/// lines after it: the bytes of a read beyond the turn's last allowed line are held and framed first in a later
/// turn, so nothing is lost and at most one read (`outputBytesPerTurn`) is held. While `mustPause`, the owner
/// stops reading the pipe, so the pipe fills and the child's writes block: the writer slows, not the loop.
///
/// A pure value: no I/O, no clock (the turn is passed in). Not thread-safe; one per stream.
struct OutputThrottle {
    let bytesPerTurn: Int
    let linesPerTurn: Int
    private(set) var framer: LineFramer
    /// Read and not framed yet: the part of a read after the turn's last allowed line.
    private(set) var held: [UInt8] = []
    /// The turn the counters below belong to.
    private var turn: UInt64?
    private var bytesRead = 0
    private var linesFramed = 0

    /// - Parameters:
    ///   - bytesPerTurn, linesPerTurn: Positive; `Int.max` turns that bound off.
    ///   - lineLimitBytes: Longer lines are cut (`LineFramer`); with `keepsCutPrefix` their first
    ///     `lineLimitBytes` bytes are framed as a line just before the `.tooLong`.
    init(bytesPerTurn: Int, linesPerTurn: Int, lineLimitBytes: Int, keepsCutPrefix: Bool = false) {
        precondition(bytesPerTurn > 0 && linesPerTurn > 0, "output budgets must be positive")
        self.bytesPerTurn = bytesPerTurn
        self.linesPerTurn = linesPerTurn
        self.framer = LineFramer(maximumLineBytes: lineLimitBytes, keepsCutPrefix: keepsCutPrefix)
    }

    /// True when the stream must not be read before a later turn: bytes are held, or this turn's budget is
    /// spent. Valid after a call for the current turn.
    var mustPause: Bool {
        !self.held.isEmpty || self.bytesRead >= self.bytesPerTurn || self.linesFramed >= self.linesPerTurn
    }

    /// How many bytes the stream may read now, in `turn`: 0 only while `mustPause`.
    mutating func readableBytes(in turn: UInt64) -> Int {
        self.enter(turn)
        return self.mustPause ? 0 : self.bytesPerTurn - self.bytesRead
    }

    /// Frames bytes just read in `turn`: the lines that fit in the turn's line budget, in order. The rest is held
    /// (`mustPause` is then true) for `takeHeld`.
    mutating func read(_ bytes: UnsafeRawBufferPointer, in turn: UInt64) -> [LineFramer.Frame] {
        precondition(self.held.isEmpty, "read while \(self.held.count) bytes are held")
        self.enter(turn)
        self.bytesRead += bytes.count
        let taken = self.allowedPrefix(of: bytes)
        if taken < bytes.count { self.held = Array(bytes[taken...]) }
        return self.framer.append(UnsafeRawBufferPointer(rebasing: bytes[..<taken]))
    }

    /// Frames held bytes with the budget of `turn` (a later turn than the read that held them), in order; they
    /// count against that turn's bytes too.
    mutating func takeHeld(in turn: UInt64) -> [LineFramer.Frame] {
        self.enter(turn)
        guard !self.held.isEmpty else { return [] }
        let (frames, rest) = self.held.withUnsafeBytes { bytes in
            let taken = self.allowedPrefix(of: bytes)
            self.bytesRead += taken
            return (self.framer.append(UnsafeRawBufferPointer(rebasing: bytes[..<taken])), Array(bytes[taken...]))
        }
        self.held = rest
        return frames
    }

    /// The stream ended (nothing is held): an unfinished last line, if any.
    mutating func finish() -> [LineFramer.Frame] {
        precondition(self.held.isEmpty, "finish while \(self.held.count) bytes are held")
        return self.framer.finish()
    }

    /// Resets the counters when `turn` is a new one.
    private mutating func enter(_ turn: UInt64) {
        guard self.turn != turn else { return }
        self.turn = turn
        self.bytesRead = 0
        self.linesFramed = 0
    }

    /// The length of the prefix of `bytes` that ends with the last line the turn allows (all of it when the
    /// budget is not reached), counted against the budget.
    private mutating func allowedPrefix(of bytes: UnsafeRawBufferPointer) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var taken = 0
        while self.linesFramed < self.linesPerTurn, taken < bytes.count {
            guard let newline = memchr(base + taken, 0x0A, bytes.count - taken) else { return bytes.count }
            taken = base.distance(to: UnsafeRawPointer(newline)) + 1
            self.linesFramed += 1
        }
        return taken
    }
}
