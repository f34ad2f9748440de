@_spi(Driver) import RunwayCore
import Testing

/// S7 (screen lock and unlock) in both lock behaviours, as the exact action list of every call. Classic (iOS 4,
/// the default): lock is `willResignActive` and the app stays inactive, no budget runs. Modern (iOS 5 on): lock is
/// `willResignActive, didEnterBackground`, the background rules apply (budget, warning, suspension, B3 to B6), and
/// unlock is `willEnterForeground, didBecomeActive`. Budget 10 s here, warning lead 5 s, grace 5 s.
@Suite struct LockActionTests {
    private let settings = SchedulerSettings(backgroundTimeBudget: .seconds(10))
    private func expire(_ task: BackgroundTaskID) -> Message { .backgroundTaskWillExpire(task) }

    // MARK: classic

    @Test func S7_classicLockResignsActiveAndTheAppStaysInactiveWithoutABudget() throws {
        var scheduler = try makeScheduler(settings: self.settings)
        try scheduler.run(.launch, for: mail, now: at(0))
        scheduler.beginTask("upload", in: mail, now: at(0))
        let lock = try scheduler.userActionReceived(.lock, for: mail, now: at(10))
        // Expected: publish active -> inactive, willResignActive; no wake-up (no budget, nothing to suspend).
        #expect(
            lock == [
                published(
                    mail,
                    .active,
                    .inactive,
                    .command(.resignActive),
                    at: at(10),
                    [.willResignActive],
                    asked: .lock
                ),
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: lock)),
            ]
        )
        #expect(scheduler.acknowledge(.willResignActive, of: mail, in: lock, now: at(10)) == [])
        // Expected: locked for far longer than the budget: nothing happens, the time left stays unlimited.
        #expect(scheduler.nextWakeup == nil)
        #expect(scheduler.clockAdvanced(to: at(100)) == [])
        #expect(scheduler.state(of: mail) == .inactive)
        #expect(scheduler.backgroundTimeRemaining(for: mail, now: at(100)) == .max)
        let unlock = try scheduler.userActionReceived(.unlock, for: mail, now: at(100))
        // Expected: publish inactive -> active, didBecomeActive.
        #expect(
            unlock == [
                published(
                    mail,
                    .inactive,
                    .active,
                    .command(.activate),
                    at: at(100),
                    [.didBecomeActive],
                    asked: .unlock
                ),
                .deliver(mail, .didBecomeActive, token(.didBecomeActive, to: mail, in: unlock)),
            ]
        )
    }

    // MARK: modern

    @Test func S7_modernLockEntersTheBackgroundWithItsBudgetWarningAndSuspension() throws {
        var scheduler = try makeScheduler(
            settings: SchedulerSettings(backgroundTimeBudget: .seconds(10), lockBehavior: .modern)
        )
        try scheduler.run(.launch, for: mail, now: at(0))
        let task = scheduler.beginTask("upload", in: mail, now: at(0))
        let lock = try scheduler.userActionReceived(.lock, for: mail, now: at(10))
        // Expected: publish active -> background, willResignActive; wake-up at the warning, 10 + 10 - 5 (B3, B4).
        #expect(
            lock == [
                published(
                    mail,
                    .active,
                    .background,
                    .command(.enterBackground),
                    at: at(10),
                    [.willResignActive, .didEnterBackground],
                    asked: .lock
                ),
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: lock)),
                .armWakeup(at(15)),
            ]
        )
        #expect(scheduler.backgroundTimeRemaining(for: mail, now: at(10)) == .seconds(10))
        let resigned = scheduler.acknowledge(.willResignActive, of: mail, in: lock, now: at(11))
        // Expected: didEnterBackground; its grace (16) is later than the warning, so no new wake-up.
        #expect(resigned == [.deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: resigned))])
        // Expected: the app holds a task: it stays in the background.
        #expect(scheduler.acknowledge(.didEnterBackground, of: mail, in: resigned, now: at(11)) == [])
        #expect(scheduler.clockAdvanced(to: at(15) - .nanoseconds(1)) == [])
        let warning = scheduler.clockAdvanced(to: at(15))
        // Expected: the task's expiration handler at the warning, then the wake-up moves to the deadline (20).
        #expect(
            warning == [
                .deliver(mail, self.expire(task), token(self.expire(task), to: mail, in: warning)),
                .armWakeup(at(20)),
            ]
        )
        #expect(scheduler.acknowledge(self.expire(task), of: mail, in: warning, now: at(15)) == [])
        // Expected: the last task ends: suspended at once (B5).
        #expect(
            try scheduler.backgroundTaskEnded(task, by: mail, now: at(17)) == [
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(17)),
                .cancelWakeup,
            ]
        )
        let unlock = try scheduler.userActionReceived(.unlock, for: mail, now: at(30))
        // Expected: resume, publish suspended -> active, willEnterForeground.
        #expect(
            unlock == [
                .resume(mail),
                published(
                    mail,
                    .suspended,
                    .active,
                    .command(.enterForeground),
                    at: at(30),
                    [.willEnterForeground, .didBecomeActive],
                    asked: .unlock
                ),
                .deliver(mail, .willEnterForeground, token(.willEnterForeground, to: mail, in: unlock)),
            ]
        )
        let entered = scheduler.acknowledge(.willEnterForeground, of: mail, in: unlock, now: at(30))
        // Expected: then didBecomeActive.
        #expect(entered == [.deliver(mail, .didBecomeActive, token(.didBecomeActive, to: mail, in: entered))])
    }

    @Test func S7_modernLockOfAnAppThatIgnoresItsWarningKillsItAtTheDeadline() throws {
        let settings = SchedulerSettings(backgroundTimeBudget: .seconds(4), lockBehavior: .modern)
        var scheduler = try makeScheduler(settings: settings)
        try scheduler.run(.launch, for: mail, now: at(0))
        let task = scheduler.beginTask("sync", in: mail, now: at(0))
        let lock = try scheduler.userActionReceived(.lock, for: mail, now: at(1))
        scheduler.acknowledgeAll(lock, now: at(1))
        // Expected: a 4 s budget, locked 5 s: the warning at the entry (the lead exceeds the budget)...
        let warning = scheduler.clockAdvanced(to: at(1))
        #expect(
            warning == [
                .deliver(mail, self.expire(task), token(self.expire(task), to: mail, in: warning)),
                .armWakeup(at(5)),
            ]
        )
        // ... and at the deadline, 1 + 4, the task is still held: terminated for overrun (B6).
        #expect(
            scheduler.clockAdvanced(to: at(5)) == [
                .stop(mail),
                .endTasks(mail, [task]),
                published(mail, .background, .notRunning, .terminated(.budgetOverrun), at: at(5)),
                .cancelWakeup,
            ]
        )
    }

    @Test func S7_modernLockWithoutATaskSuspendsWhenDidEnterBackgroundReturns() throws {
        var scheduler = try makeScheduler([protocolApp], settings: SchedulerSettings(lockBehavior: .modern))
        try scheduler.run(.launch, for: mail, now: at(0))
        let lock = try scheduler.userActionReceived(.lock, for: mail, now: at(10))
        let resigned = scheduler.acknowledge(.willResignActive, of: mail, in: lock, now: at(10))
        // Expected: didEnterBackground with its grace (10 + 5, before the warning at 35).
        #expect(
            resigned == [
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: resigned)),
                .armWakeup(at(15)),
            ]
        )
        // Expected: suspend (freeze), publish, cancel the wake-up.
        #expect(
            scheduler.acknowledge(.didEnterBackground, of: mail, in: resigned, now: at(11)) == [
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(11)),
                .setOOMScoreAdjust(mail, 1000),
                .cancelWakeup,
            ]
        )
    }

    // MARK: the per-app override

    @Test(arguments: [LockBehavior.classic, .modern])
    func S7_anAppsLockBehaviorOverridesTheSchedulers(app behavior: LockBehavior) throws {
        let scheduled: LockBehavior = behavior == .classic ? .modern : .classic
        var scheduler = try makeScheduler(
            [AppDescriptor(id: mail, lockBehavior: behavior), AppDescriptor(id: maps)],
            settings: SchedulerSettings(lockBehavior: scheduled)
        )
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.launch, for: maps, now: at(0))
        let lockMail = try scheduler.userActionReceived(.lock, for: mail, now: at(10))
        let lockMaps = try scheduler.userActionReceived(.lock, for: maps, now: at(10))
        scheduler.acknowledgeAll(lockMail + lockMaps, now: at(10))
        // Expected: each app by its own behaviour: classic stays inactive, modern is suspended (no task).
        let expected: [LockBehavior: AppState] = [.classic: .inactive, .modern: .suspended]
        #expect(scheduler.state(of: mail) == expected[behavior])
        #expect(scheduler.state(of: maps) == expected[scheduled])
        let unlockMail = try scheduler.userActionReceived(.unlock, for: mail, now: at(20))
        let unlockMaps = try scheduler.userActionReceived(.unlock, for: maps, now: at(20))
        let messages: [LockBehavior: [Message]] = [
            .classic: [.didBecomeActive], .modern: [.willEnterForeground, .didBecomeActive],
        ]
        #expect(self.messages(published: unlockMail) == messages[behavior])
        #expect(self.messages(published: unlockMaps) == messages[scheduled])
    }

    /// The messages of the one transition published in `actions`.
    private func messages(published actions: [Action]) -> [Message]? {
        let events = actions.compactMap { action -> TransitionEvent? in
            guard case .publish(let event) = action else { return nil }
            return event
        }
        return events.count == 1 ? events.first?.messages : nil
    }
}
