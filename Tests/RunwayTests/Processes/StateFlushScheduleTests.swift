@_spi(Processes) import RunwayCore
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

@Suite("The state file is rewritten once after a change, next turn after a quiet period, spaced during a burst")
struct StateFlushScheduleTests {
    static let start = Instant(nanosecondsSinceOrigin: 1_000_000_000)

    @Test("The first change arms the write; the others before it are covered by it; after it, a change arms again")
    func oneWritePerBatchOfChanges() {
        var schedule = StateFlushSchedule()
        #expect(!schedule.isDirty)
        #expect(schedule.changed(keepsFile: true, closed: false, now: Self.start) == .nextTurn)
        #expect(schedule.isDirty)
        for _ in 0..<50 {
            #expect(schedule.changed(keepsFile: true, closed: false, now: Self.start) == nil)
        }
        schedule.flushed(now: Self.start)
        #expect(!schedule.isDirty)
        #expect(schedule.changed(keepsFile: true, closed: false, now: Self.start + .milliseconds(50)) == .nextTurn)
    }

    @Test("A change within the spacing of the last write waits for the spacing; one after a quiet period does not")
    func changesDuringABurstAreSpaced() {
        var schedule = StateFlushSchedule()
        // Expected: written at 0; a change at 1 ms waits 49 ms; written at 50 ms; a change at 50.5 ms waits 50 ms
        // (rounded up from 49.5); written at 100 ms; a change at 200 ms (quiet for the spacing) is written next turn.
        #expect(schedule.changed(keepsFile: true, closed: false, now: Self.start) == .nextTurn)
        schedule.flushed(now: Self.start)
        let one = schedule.changed(keepsFile: true, closed: false, now: Self.start + .milliseconds(1))
        #expect(one == .after(milliseconds: 49))
        schedule.flushed(now: Self.start + .milliseconds(50))
        let two = schedule.changed(keepsFile: true, closed: false, now: Self.start + .microseconds(50_500))
        #expect(two == .after(milliseconds: 50))
        schedule.flushed(now: Self.start + .milliseconds(100))
        #expect(schedule.changed(keepsFile: true, closed: false, now: Self.start + .milliseconds(200)) == .nextTurn)
    }

    @Test("No write is armed without a state file, or once the supervisor is closed")
    func noWriteWithoutAFileOrAfterClose() {
        var schedule = StateFlushSchedule()
        #expect(schedule.changed(keepsFile: false, closed: false, now: Self.start) == nil)
        #expect(schedule.changed(keepsFile: true, closed: true, now: Self.start) == nil)
        #expect(!schedule.isDirty)
    }
}
