@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

@Suite("P1: a suspension is first looked at on a later loop turn than its signal; a resumption at once")
struct SuspensionConfirmationFirstLookTests {
    static let t0 = Instant(nanosecondsSinceOrigin: 10_000_000_000)

    @Test("P1: a suspension is not looked at in the turn it was signalled in, and is on any later turn")
    func P1_suspensionWaitsForALaterTurn() {
        let confirmation = SuspensionConfirmation(suspending: true, since: Self.t0, timeout: .seconds(2))
        #expect(!confirmation.mayLook(now: Self.t0))
        #expect(confirmation.mayLook(now: Self.t0 + .nanoseconds(1)))
        #expect(confirmation.mayLook(now: Self.t0 + .seconds(3)))
    }

    @Test("P1: a resumption is looked at in the turn it was signalled in")
    func P1_resumptionIsLookedAtAtOnce() {
        let confirmation = SuspensionConfirmation(suspending: false, since: Self.t0, timeout: .seconds(2))
        #expect(confirmation.mayLook(now: Self.t0))
        #expect(confirmation.mayLook(now: Self.t0 + .milliseconds(1)))
    }
}
