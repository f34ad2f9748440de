@_spi(Processes) import RunwayCore
import Testing

@Suite("A5: a protocol child that does not read is a violation, decided by ProtocolPolicer")
struct ProtocolPolicerWriteQueueTests {
    @Test("A5: up to the limit queued is accepted; one byte more is a violation naming the limit")
    func A5_writeQueueLimit() {
        let policer = ProtocolPolicer(writeQueueLimitBytes: 1_000)
        #expect(policer.bytesQueued(0) == .accept)
        #expect(policer.bytesQueued(999) == .accept)
        #expect(policer.bytesQueued(1_000) == .accept)
        #expect(policer.bytesQueued(1_001) == .violation(reason: "more than 1000 bytes unread"))
    }

    @Test("A5: the verdict follows the queue's level: a queue that drained back under the limit is accepted")
    func A5_writeQueueIsALevelNotACount() {
        let policer = ProtocolPolicer(writeQueueLimitBytes: 10)
        #expect(policer.bytesQueued(11) != .accept)
        #expect(policer.bytesQueued(10) == .accept)
        #expect(policer.bytesQueued(11) != .accept)
    }

    @Test("A5: the default write-queue limit is 1 MiB, as ProcessOptions' protocolWriteQueueLimitBytes")
    func A5_defaultWriteQueueLimit() {
        let policer = ProtocolPolicer()
        #expect(policer.writeQueueLimitBytes == 1 << 20)
        #expect(policer.bytesQueued(1 << 20) == .accept)
        #expect(policer.bytesQueued((1 << 20) + 1) == .violation(reason: "more than 1048576 bytes unread"))
    }

    @Test("A5: lines received do not change the write-queue verdict, and a full queue does not count as a line")
    func A5_writeQueueIndependentOfLineLimits() {
        var policer = ProtocolPolicer(malformedLimit: 0, lineLimit: 1, writeQueueLimitBytes: 4)
        let t0 = Instant(nanosecondsSinceOrigin: 5_000_000_000)
        #expect(policer.bytesQueued(5) != .accept)
        #expect(policer.lineReceived(now: t0) == .accept)
        #expect(policer.bytesQueued(4) == .accept)
    }
}
