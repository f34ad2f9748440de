@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayTestKit
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

@Suite("P2: the start and the close wait for killed processes up to orphanReapTimeout, then give up")
struct KilledProcessWaitTests {
    static let t0 = Instant(nanosecondsSinceOrigin: 5_000_000_000)

    @Test("P2: with processes left, look again until the timeout, and give up at exactly the timeout")
    func P2_givesUpAtTheTimeout() {
        let wait = KilledProcessWait(since: Self.t0, timeout: .milliseconds(250))
        var clock = ManualClock(now: Self.t0)
        #expect(wait.observed(remaining: 3, now: clock.now) == .lookAgain)
        clock.advance(by: .nanoseconds(249_999_999))
        #expect(wait.observed(remaining: 1, now: clock.now) == .lookAgain)
        clock.advance(by: .nanoseconds(1))
        #expect(wait.observed(remaining: 1, now: clock.now) == .giveUp(waited: .milliseconds(250)))
    }

    @Test("P2: nothing left is done, at any time, the timeout's instant and after it included")
    func P2_nothingLeftIsDone() {
        let wait = KilledProcessWait(since: Self.t0, timeout: .milliseconds(250))
        #expect(wait.observed(remaining: 0, now: Self.t0) == .done)
        #expect(wait.observed(remaining: 0, now: Self.t0 + .seconds(10)) == .done)
    }

    @Test("P2: a zero or negative timeout gives up at the first look that finds processes left")
    func P2_noTimeoutGivesUpAtTheFirstLook() {
        for timeout in [TimeSpan.zero, .milliseconds(-5)] {
            let wait = KilledProcessWait(since: Self.t0, timeout: timeout)
            #expect(wait.timeout == .zero)
            #expect(wait.observed(remaining: 2, now: Self.t0) == .giveUp(waited: .zero))
        }
    }
}
