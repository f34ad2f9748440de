import RunwayCore
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

@Suite("P1: a suspend or resume is confirmed by the kernel or times out (SuspensionConfirmation)")
struct SuspensionConfirmationTests {
    static let t0 = Instant(nanosecondsSinceOrigin: 10_000_000_000)

    @Test("P1: pending until the kernel shows the state; confirmed with the time it took")
    func P1_confirmedWhenTheKernelShowsIt() {
        var confirmation = SuspensionConfirmation(suspending: true, since: Self.t0, timeout: .seconds(2))
        #expect(confirmation.isPending)
        #expect(!confirmation.isConfirmed)
        #expect(confirmation.kernelObserved(showsRequestedState: false, now: Self.t0) == .pending)
        #expect(confirmation.kernelObserved(showsRequestedState: false, now: Self.t0 + .milliseconds(1)) == .pending)
        let status = confirmation.kernelObserved(showsRequestedState: true, now: Self.t0 + .milliseconds(3))
        #expect(status == .confirmed(after: .milliseconds(3)))
        #expect(confirmation.isConfirmed)
        #expect(!confirmation.isPending)
    }

    @Test("P1: not shown within the timeout: timed out at exactly since + timeout, not a nanosecond before")
    func P1_timesOutAtTheTimeout() {
        var confirmation = SuspensionConfirmation(suspending: false, since: Self.t0, timeout: .seconds(2))
        let justBefore = Self.t0 + .seconds(2) - .nanoseconds(1)
        #expect(confirmation.kernelObserved(showsRequestedState: false, now: justBefore) == .pending)
        let status = confirmation.kernelObserved(showsRequestedState: false, now: Self.t0 + .seconds(2))
        #expect(status == .timedOut(waited: .seconds(2)))
        #expect(!confirmation.isConfirmed)
        #expect(!confirmation.isPending)
    }

    @Test("P1: the kernel showing the state wins over the timeout at the same instant")
    func P1_confirmationWinsAtTheTimeout() {
        var confirmation = SuspensionConfirmation(suspending: true, since: Self.t0, timeout: .seconds(2))
        let status = confirmation.kernelObserved(showsRequestedState: true, now: Self.t0 + .seconds(5))
        #expect(status == .confirmed(after: .seconds(5)))
    }

    @Test("P1: confirmed and timed out are final: later observations change nothing")
    func P1_outcomesAreFinal() {
        var confirmed = SuspensionConfirmation(suspending: true, since: Self.t0, timeout: .seconds(1))
        _ = confirmed.kernelObserved(showsRequestedState: true, now: Self.t0 + .milliseconds(2))
        let later = confirmed.kernelObserved(showsRequestedState: false, now: Self.t0 + .seconds(9))
        #expect(later == .confirmed(after: .milliseconds(2)))

        var timedOut = SuspensionConfirmation(suspending: true, since: Self.t0, timeout: .seconds(1))
        _ = timedOut.kernelObserved(showsRequestedState: false, now: Self.t0 + .seconds(1))
        let afterTimeOut = timedOut.kernelObserved(showsRequestedState: true, now: Self.t0 + .seconds(2))
        #expect(afterTimeOut == .timedOut(waited: .seconds(1)))
        #expect(!timedOut.isConfirmed)
    }

    @Test("P1: a signal the kernel refused makes the request final and unconfirmed at once, whatever is seen later")
    func P1_refusedSignalIsFinalAndUnconfirmed() {
        var confirmation = SuspensionConfirmation(suspending: true, since: Self.t0, timeout: .seconds(2))
        confirmation.signalRefused()
        #expect(!confirmation.isPending)
        #expect(!confirmation.isConfirmed)
        #expect(confirmation.kernelObserved(showsRequestedState: true, now: Self.t0 + .milliseconds(1)) == .refused)

        // Once confirmed, a refusal noticed later (a process found after the stop) changes nothing.
        var confirmed = SuspensionConfirmation(suspending: true, since: Self.t0, timeout: .seconds(2))
        _ = confirmed.kernelObserved(showsRequestedState: true, now: Self.t0 + .milliseconds(1))
        confirmed.signalRefused()
        #expect(confirmed.isConfirmed)
    }

    @Test("P1: a zero timeout gives up at the first look that does not confirm")
    func P1_zeroTimeout() {
        var confirmation = SuspensionConfirmation(suspending: true, since: Self.t0, timeout: .zero)
        #expect(confirmation.kernelObserved(showsRequestedState: false, now: Self.t0) == .timedOut(waited: .zero))
    }
}
