import RunwayCore
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

/// A5: `OutputThrottle`, the rule that bounds the output work of one stream per loop turn.
@Suite("OutputThrottle: output work per stream per loop turn")
struct OutputThrottleRuleTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func lines(_ frames: [LineFramer.Frame]) -> [String] {
        frames.map {
            if case .line(let bytes) = $0 { return String(decoding: bytes, as: UTF8.self) }
            return "<cut>"
        }
    }

    @Test("A5: lines beyond a turn's line budget are held, then framed first in later turns; none is lost")
    func A5_linesBeyondTheBudgetAreHeldForLaterTurns() {
        var throttle = OutputThrottle(bytesPerTurn: 1_000, linesPerTurn: 2, lineLimitBytes: 100)
        #expect(throttle.readableBytes(in: 1) == 1_000)
        let first = Self.bytes("a\nb\nc\nd\ne")
        let framed = first.withUnsafeBytes { throttle.read($0, in: 1) }
        #expect(Self.lines(framed) == ["a", "b"])
        #expect(throttle.mustPause)
        #expect(throttle.readableBytes(in: 1) == 0)
        #expect(Self.lines(throttle.takeHeld(in: 1)).isEmpty, "the same turn's budget is spent")
        #expect(Self.lines(throttle.takeHeld(in: 2)) == ["c", "d"])
        #expect(throttle.mustPause, "e is still held")
        #expect(Self.lines(throttle.takeHeld(in: 3)).isEmpty, "e is an unfinished line")
        #expect(!throttle.mustPause)
        #expect(throttle.readableBytes(in: 3) == 1_000 - 1)
        let rest = Self.bytes("f\n")
        #expect(Self.lines(rest.withUnsafeBytes { throttle.read($0, in: 3) }) == ["ef"])
        #expect(Self.lines(throttle.finish()).isEmpty)
    }

    @Test("A5: bytes read in a turn are bounded; the budget is fresh in the next turn")
    func A5_bytesPerTurnAreBounded() {
        var throttle = OutputThrottle(bytesPerTurn: 8, linesPerTurn: 100, lineLimitBytes: 100)
        #expect(throttle.readableBytes(in: 7) == 8)
        _ = Self.bytes("abcde").withUnsafeBytes { throttle.read($0, in: 7) }
        #expect(!throttle.mustPause)
        #expect(throttle.readableBytes(in: 7) == 3)
        #expect(Self.lines(Self.bytes("f\ng").withUnsafeBytes { throttle.read($0, in: 7) }) == ["abcdef"])
        #expect(throttle.mustPause)
        #expect(throttle.readableBytes(in: 7) == 0)
        #expect(throttle.readableBytes(in: 8) == 8)
        #expect(Self.lines(throttle.finish()) == ["g"])
    }

    @Test("A5: Int.max turns the bounds off")
    func A5_intMaxTurnsTheBoundOff() {
        var throttle = OutputThrottle(bytesPerTurn: .max, linesPerTurn: .max, lineLimitBytes: 16)
        let many = Self.bytes(String(repeating: "y\n", count: 10_000))
        #expect(many.withUnsafeBytes { throttle.read($0, in: 1) }.count == 10_000)
        #expect(!throttle.mustPause)
    }
}
