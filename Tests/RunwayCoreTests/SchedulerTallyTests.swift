@_spi(Driver) import RunwayCore
import Testing

/// `Scheduler.tally`: the fleet counts a status summary reads without visiting each app, kept as they change.
/// Defaults: ThrottleInterval 10 s, CrashLoopThreshold 5.
@Suite struct SchedulerTallyTests {
    @Test func tallyCountsAppsAndOutstandingTasksAsTheyBeginAndEnd() throws {
        var scheduler = try makeScheduler([AppDescriptor(id: mail), AppDescriptor(id: "com.example.notes")])
        _ = try scheduler.run(.launch, for: mail, now: at(0))
        let first = scheduler.backgroundTaskRequested(name: "sync", by: mail, now: at(1))
        _ = scheduler.backgroundTaskRequested(name: "upload", by: mail, now: at(1))
        #expect(scheduler.tally == SchedulerTally(apps: 2, outstandingTasks: 2, crashLooping: 0))
        _ = try scheduler.backgroundTaskEnded(first.id, by: mail, now: at(2))
        #expect(scheduler.tally == SchedulerTally(apps: 2, outstandingTasks: 1, crashLooping: 0))
    }

    @Test func crashLoopingAppIsCountedFromTheThresholdUntilTerminateCancelsItsRestart() throws {
        var scheduler = try makeScheduler([keptAlive()])
        _ = try scheduler.run(.launch, for: mail, now: at(0))
        // Every run fails at once: the restarts come 10, 20, 40, 80 s after each exit; the fifth failure is the
        // threshold.
        var now: Int64 = 0
        for (failure, delay) in [Int64(10), 20, 40, 80, 160].enumerated() {
            _ = scheduler.processExited(mail, exit: .exited(3), now: at(now))
            #expect(scheduler.tally.crashLooping == (failure + 1 >= 5 ? 1 : 0), "failure \(failure + 1)")
            if failure + 1 < 5 {
                now += delay
                _ = scheduler.clockAdvanced(to: at(now))
            }
        }
        // An operator's terminate of the app waiting for its restart cancels it and ends the crash loop.
        _ = try scheduler.run(.terminate, for: mail, now: at(now + 1))
        #expect(scheduler.tally.crashLooping == 0)
        scheduler.checkInvariants()
    }
}
