import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

@Suite("P1: the housekeeping tick runs only while something is pending, on the next turn after a suspension")
struct HousekeepingTickScheduleTests {
    @Test("P1: the first request starts the timer at the interval; a second one while it runs changes nothing")
    func P1_aRequestStartsTheTimerOnce() {
        var schedule = HousekeepingTickSchedule(intervalMilliseconds: 1)
        #expect(!schedule.isRunning)
        #expect(schedule.requested(soon: false) == .start(firstMilliseconds: 1, everyMilliseconds: 1))
        #expect(schedule.isRunning)
        #expect(!schedule.firesNextTurn)
        #expect(schedule.requested(soon: false) == .keep)
    }

    @Test("P1: a suspension re-arms a running tick for the next loop turn, once until it fires")
    func P1_soonReArmsOnceUntilTheTickFires() {
        var schedule = HousekeepingTickSchedule(intervalMilliseconds: 5)
        // Expected: start at the interval; `soon` re-arms at 0; a batch's further requests keep it; after the
        // tick fired, the next `soon` re-arms at 0 again.
        #expect(schedule.requested(soon: false) == .start(firstMilliseconds: 5, everyMilliseconds: 5))
        #expect(schedule.requested(soon: true) == .start(firstMilliseconds: 0, everyMilliseconds: 5))
        #expect(schedule.firesNextTurn)
        for _ in 0..<100 {
            #expect(schedule.requested(soon: true) == .keep)
            #expect(schedule.requested(soon: false) == .keep)
        }
        schedule.fired()
        #expect(!schedule.firesNextTurn)
        #expect(schedule.requested(soon: false) == .keep)
        #expect(schedule.requested(soon: true) == .start(firstMilliseconds: 0, everyMilliseconds: 5))
    }

    @Test("P1: the tick stops when nothing is pending after its work, and not while something is")
    func P1_theTickStopsWhenNothingIsPending() {
        var schedule = HousekeepingTickSchedule(intervalMilliseconds: 1)
        _ = schedule.requested(soon: true)
        schedule.fired()
        #expect(schedule.settled(pending: true) == false)
        #expect(schedule.isRunning)
        #expect(schedule.settled(pending: false) == true)
        #expect(!schedule.isRunning)
        // Already stopped: nothing to stop again (closing after the last tick).
        #expect(schedule.settled(pending: false) == false)
        #expect(schedule.stopped() == false)
        // Stopped, a later request starts it again, at the interval unless `soon`.
        #expect(schedule.requested(soon: false) == .start(firstMilliseconds: 1, everyMilliseconds: 1))
    }

    @Test("P1: stopping a tick armed for the next turn forgets that, so the next suspension re-arms it")
    func P1_stoppingForgetsTheNextTurnArming() {
        var schedule = HousekeepingTickSchedule(intervalMilliseconds: 1)
        _ = schedule.requested(soon: true)
        #expect(schedule.stopped() == true)
        #expect(!schedule.firesNextTurn)
        #expect(schedule.requested(soon: true) == .start(firstMilliseconds: 0, everyMilliseconds: 1))
    }
}
