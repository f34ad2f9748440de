@_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

@Suite("P2: leftovers of an app are waited for up to ProcessOptions.orphanReapTimeout")
struct OrphanReapTimeoutTests {
    static let t0 = Instant(nanosecondsSinceOrigin: 3_000_000_000)

    @Test("P2: the default orphan reap timeout is 5 s")
    func P2_defaultTimeoutIsFiveSeconds() {
        #expect(ProcessOptions().orphanReapTimeout == .seconds(5))
        #expect(ProcessOptions(orphanReapTimeout: .milliseconds(250)).orphanReapTimeout == .milliseconds(250))
    }

    @Test("P2: a leftover is overdue only once more than the timeout has passed since the app's exit")
    func P2_overdueAfterTheTimeout() {
        let orphan = ProcessSupervisor.Orphan(pid: 4242, app: "com.example.app", since: Self.t0)
        #expect(!orphan.isOverdue(now: Self.t0, timeout: .seconds(5)))
        #expect(!orphan.isOverdue(now: Self.t0 + .seconds(5), timeout: .seconds(5)))
        #expect(orphan.isOverdue(now: Self.t0 + .seconds(5) + .nanoseconds(1), timeout: .seconds(5)))
        #expect(orphan.isOverdue(now: Self.t0 + .milliseconds(101), timeout: .milliseconds(100)))
    }
}
