import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

@Suite("The state file is rewritten once on the turn after a change, however many changes the turn makes")
struct StateFlushScheduleTests {
    @Test("The first change arms the write; the others before it are covered by it; after it, a change arms again")
    func oneWritePerBatchOfChanges() {
        var schedule = StateFlushSchedule()
        #expect(!schedule.isDirty)
        let first = schedule.changed(keepsFile: true, closed: false)
        #expect(first)
        #expect(schedule.isDirty)
        for _ in 0..<50 {
            let again = schedule.changed(keepsFile: true, closed: false)
            #expect(!again)
        }
        schedule.flushed()
        #expect(!schedule.isDirty)
        let next = schedule.changed(keepsFile: true, closed: false)
        #expect(next)
    }

    @Test("No write is armed without a state file, or once the supervisor is closed")
    func noWriteWithoutAFileOrAfterClose() {
        var schedule = StateFlushSchedule()
        let withoutFile = schedule.changed(keepsFile: false, closed: false)
        #expect(!withoutFile)
        let closed = schedule.changed(keepsFile: true, closed: true)
        #expect(!closed)
        #expect(!schedule.isDirty)
    }
}
