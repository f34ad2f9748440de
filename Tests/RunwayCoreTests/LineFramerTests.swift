import RunwayCore
import Testing

@Suite("Line framing and protocol policing (A5, K1)")
struct LineFramerTests {
    @Test("lines split on newline, CR dropped, partial lines held across appends")
    func splitsLines() {
        var framer = LineFramer(maximumLineBytes: 16)
        #expect(framer.append(Array("ab\r\ncd".utf8)) == [.line(Array("ab".utf8))])
        #expect(framer.pendingBytes == 2)
        #expect(framer.append(Array("e\n\n".utf8)) == [.line(Array("cde".utf8)), .line([])])
        #expect(framer.append(Array("tail".utf8)) == [])
        #expect(framer.finish() == [.line(Array("tail".utf8))])
    }

    @Test("A5: a line over the limit is reported once and skipped up to its newline; memory stays bounded")
    func A5_tooLongLine() {
        var framer = LineFramer(maximumLineBytes: 4)
        #expect(framer.append(Array("abcdefgh".utf8)) == [.tooLong(bytesSeen: 5)])
        #expect(framer.pendingBytes == 0)
        #expect(framer.append(Array("ijk\nok\n".utf8)) == [.line(Array("ok".utf8))])
        #expect(framer.append(Array("abcd\n".utf8)) == [.line(Array("abcd".utf8))])
    }

    @Test("keepsCutPrefix (app output): a long line's first bytes come as a line just before its tooLong")
    func keepsCutPrefix() {
        var framer = LineFramer(maximumLineBytes: 4, keepsCutPrefix: true)
        #expect(
            framer.append(Array("xy\nabcdefgh".utf8)) == [
                .line(Array("xy".utf8)), .line(Array("abcd".utf8)), .tooLong(bytesSeen: 5),
            ]
        )
        #expect(framer.append(Array("ijk\nok\n".utf8)) == [.line(Array("ok".utf8))])
    }

    @Test("A5: malformed lines beyond the limit within the window are a violation; older ones age out")
    func A5_malformedLimit() {
        var policer = ProtocolPolicer(malformedLimit: 2, lineLimit: 100, window: .seconds(1))
        let t0 = Instant(nanosecondsSinceOrigin: 1_000_000_000)
        #expect(policer.malformedLineReceived(now: t0) == .accept)
        #expect(policer.malformedLineReceived(now: t0 + .milliseconds(10)) == .accept)
        // The first has aged out at t0 + 1 s exactly: two in the window, still accepted.
        #expect(policer.malformedLineReceived(now: t0 + .seconds(1)) == .accept)
        guard case .violation = policer.malformedLineReceived(now: t0 + .seconds(1)) else {
            Issue.record("a third malformed line within 1 s was accepted")
            return
        }
    }

    @Test("A5: a flood of well-formed lines is a violation")
    func A5_flood() {
        var policer = ProtocolPolicer(malformedLimit: 3, lineLimit: 5, window: .seconds(1))
        let t0 = Instant(nanosecondsSinceOrigin: 0)
        for step in 0..<5 { #expect(policer.lineReceived(now: t0 + .milliseconds(Int64(step))) == .accept) }
        #expect(
            policer.lineReceived(now: t0 + .milliseconds(5)) == .violation(reason: "more than 5 lines within 1.000s")
        )
        var paced = ProtocolPolicer(malformedLimit: 3, lineLimit: 5, window: .seconds(1))
        for step in 0..<50 { #expect(paced.lineReceived(now: t0 + .milliseconds(Int64(step) * 250)) == .accept) }
    }
}
