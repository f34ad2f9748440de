@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayTestKit
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

@Suite("P1: /proc is read for an app's processes at most once per loop turn, and periodically only when needed")
struct ScanCadenceTests {
    @Test("P1: the first look in a turn is made; the others in that turn are not; the next turn's is")
    func P1_oneLookPerLoopTurn() {
        var clock = ManualClock(now: Instant(nanosecondsSinceOrigin: 7_000_000))
        var cadence = ScanCadence()
        #expect(cadence.lastLook == nil)
        #expect(cadence.lookWanted(now: clock.now) == true)
        #expect(cadence.lastLook == clock.now)
        #expect(cadence.lookWanted(now: clock.now) == false)
        #expect(cadence.lookWanted(now: clock.now) == false)
        clock.advance(by: .nanoseconds(1))
        #expect(cadence.lookWanted(now: clock.now) == true)
        #expect(cadence.lookWanted(now: clock.now) == false)
    }

    @Test("P1: a forced look is made in a turn already looked at, and counts as that turn's look")
    func P1_aForcedLookIsAlwaysMade() {
        let now = Instant(nanosecondsSinceOrigin: 1_000_000)
        var cadence = ScanCadence()
        #expect(cadence.lookWanted(now: now) == true)
        #expect(cadence.lookWanted(now: now, forced: true) == true)
        #expect(cadence.lookWanted(now: now) == false)
        var fresh = ScanCadence()
        #expect(fresh.lookWanted(now: now, forced: true) == true)
        #expect(fresh.lookWanted(now: now) == false)
    }

    @Test("P1: after forget (an exit or a launch) the next look is made even in the same turn")
    func P1_forgetAllowsTheNextLook() {
        let now = Instant(nanosecondsSinceOrigin: 1_000_000)
        var cadence = ScanCadence()
        #expect(cadence.lookWanted(now: now) == true)
        cadence.forget()
        #expect(cadence.lastLook == nil)
        #expect(cadence.lookWanted(now: now) == true)
    }

    @Test("P1: the periodic scan's interval is the setting in whole milliseconds, never below 1 ms")
    func P1_periodicIntervalInMilliseconds() {
        #expect(ScanCadence.periodicIntervalMilliseconds(.milliseconds(250)) == 250)
        #expect(ScanCadence.periodicIntervalMilliseconds(.microseconds(2_999)) == 2)
        #expect(ScanCadence.periodicIntervalMilliseconds(.microseconds(999)) == 1)
        #expect(ScanCadence.periodicIntervalMilliseconds(.zero) == 1)
    }

    @Test("P1: the settling looks run for a signal-mode app only, whether or not a state file is kept")
    func P1_settlingLooksOnlyForSignalMode() {
        #expect(ScanCadence.periodicScanNeeded(usesFreezer: false))
        #expect(!ScanCadence.periodicScanNeeded(usesFreezer: true))
    }
}
