@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayTestKit
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

@Suite("P2: a leftover is waited for until it is gone, and forgotten once more than the timeout has passed")
struct LeftoverWaitTests {
    static let t0 = Instant(nanosecondsSinceOrigin: 3_000_000_000)

    @Test("P2: still there: wait up to and at the timeout, give up a nanosecond after it with the time waited")
    func P2_givesUpStrictlyAfterTheTimeout() {
        let wait = LeftoverWait(since: Self.t0, timeout: .seconds(5))
        var clock = ManualClock(now: Self.t0)
        #expect(wait.observed(gone: false, now: clock.now) == .wait)
        clock.advance(by: .seconds(5))
        #expect(wait.observed(gone: false, now: clock.now) == .wait)
        clock.advance(by: .nanoseconds(1))
        #expect(wait.observed(gone: false, now: clock.now) == .giveUp(waited: .seconds(5) + .nanoseconds(1)))
        clock.advance(by: .seconds(60))
        #expect(wait.observed(gone: false, now: clock.now) == .giveUp(waited: .seconds(65) + .nanoseconds(1)))
    }

    @Test("P2: a leftover seen gone is done, before and after the timeout alike")
    func P2_goneWinsOverTheTimeout() {
        let wait = LeftoverWait(since: Self.t0, timeout: .milliseconds(100))
        #expect(wait.observed(gone: true, now: Self.t0) == .gone)
        #expect(wait.observed(gone: true, now: Self.t0 + .seconds(1)) == .gone)
    }

    @Test("P2: with a zero timeout, a leftover still there is forgotten at the first look after its exit")
    func P2_zeroTimeoutGivesUpAtTheFirstLaterLook() {
        let wait = LeftoverWait(since: Self.t0, timeout: .zero)
        #expect(wait.observed(gone: false, now: Self.t0) == .wait)
        #expect(wait.observed(gone: false, now: Self.t0 + .milliseconds(1)) == .giveUp(waited: .milliseconds(1)))
    }

    @Test("P2: an orphan's wait starts when the app's exit left it")
    func P2_anOrphansWaitStartsAtItsExit() {
        let orphan = ProcessSupervisor.Orphan(pid: 4242, app: "com.example.app", since: Self.t0 + .seconds(1))
        let wait = orphan.wait(timeout: .seconds(2))
        #expect(wait == LeftoverWait(since: Self.t0 + .seconds(1), timeout: .seconds(2)))
        #expect(wait.observed(gone: false, now: Self.t0 + .seconds(3)) == .wait)
    }
}
