@_spi(Driver) import RunwayCore
@_spi(Driver) import RunwayTestKit
import Testing

/// Rules B1–B10 of Behaviour.md section 3. Defaults: budget 30 s, warning lead 5 s.
@Suite struct BudgetTests {
    @Test func B1_idsAreUniqueIncreasingAndNeverInvalid() throws {
        var driver = makeDriver([AppDescriptor(id: mail), AppDescriptor(id: maps)]).launched(mail).launched(maps)
        var ids: [BackgroundTaskID] = []
        for index in 0..<50 {
            let id = driver.beginTask("t\(index)", in: index.isMultiple(of: 2) ? mail : maps)
            ids.append(id)
            if index.isMultiple(of: 3) { try driver.endTask(id, in: index.isMultiple(of: 2) ? mail : maps) }
        }
        #expect(!ids.contains(.invalid))
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
    }

    @Test func B1_refusedWhenNotRunningSuspendedOrTerminating() throws {
        var driver = makeDriver([AppDescriptor(id: mail)])
        #expect(driver.beginTask("x", in: mail) == .invalid)
        #expect(driver.beginTask("x", in: maps) == .invalid)
        try driver.send(.launch, to: mail)
        try driver.send(.enterBackground, to: mail)
        #expect(driver.state(mail) == .suspended)
        #expect(driver.beginTask("late", in: mail) == .invalid)
        try driver.send(.enterForeground, to: mail)
        driver.replies[mail] = ["willTerminate": .never]
        try driver.send(.terminate, to: mail)
        #expect(driver.beginTask("dying", in: mail) == .invalid)
        let refusals = driver.log.compactMap { entry -> TaskRefusal? in
            if case .taskRefused(_, let refusal) = entry.what { return refusal }
            return nil
        }
        #expect(refusals == [.notRunning, .unknownApp, .suspended, .terminating])
    }

    @Test func B1_refusedAfterTheBudgetRanOut() throws {
        // The driver is late: `now` is past the deadline but the wake-up has not been handled yet.
        var scheduler = Scheduler()
        try scheduler.register(AppDescriptor(id: mail))
        _ = try scheduler.commandReceived(.launchInBackground, for: mail, now: at(0))
        let held = scheduler.backgroundTaskRequested(name: "held", by: mail, now: at(0))
        #expect(held.refusal == nil)
        let late = scheduler.backgroundTaskRequested(name: "late", by: mail, now: at(30))
        #expect(late.id == .invalid)
        #expect(late.refusal == .budgetExhausted)
        let justBefore = scheduler.backgroundTaskRequested(name: "edge", by: mail, now: at(30))
        #expect(justBefore.refusal == .budgetExhausted)
    }

    @Test func B2_tasksBegunInTheForegroundCostNothingUntilBackground() throws {
        var driver = makeDriver().launched(mail)
        let task = driver.beginTask("upload", in: mail)
        driver.advance(to: at(100))
        #expect(driver.scheduler.backgroundTimeRemaining(for: mail, now: driver.now) == .max)
        try driver.send(.enterBackground, to: mail)
        // Budget starts at t=100: deadline t=130, not t=30.
        #expect(driver.scheduler.status(of: mail, now: driver.now)?.deadline == at(130))
        driver.runUntilIdle()
        #expect(driver.deliveries(to: mail).last?.at == at(125))
        #expect(driver.deliveries(to: mail).last?.message == .backgroundTaskWillExpire(task))
        #expect(driver.lastEvent(of: mail)?.at == at(130))
    }

    @Test func B3_deadlineIsEntryPlusBudgetAndRemainingCountsDown() throws {
        var driver = makeDriver([AppDescriptor(id: mail), AppDescriptor(id: maps, backgroundTimeBudget: .seconds(8))])
            .launched(mail).launched(maps)
        driver.beginTask("a", in: mail)
        driver.beginTask("b", in: maps)
        driver.advance(to: at(2))
        try driver.send(.enterBackground, to: mail)
        try driver.send(.enterBackground, to: maps)
        #expect(driver.scheduler.status(of: mail, now: driver.now)?.deadline == at(32))
        #expect(driver.scheduler.status(of: maps, now: driver.now)?.deadline == at(10))
        driver.advance(to: at(milliseconds: 9_250))
        #expect(driver.scheduler.backgroundTimeRemaining(for: maps, now: driver.now) == .milliseconds(750))
        #expect(driver.scheduler.backgroundTimeRemaining(for: mail, now: driver.now) == .milliseconds(22_750))
        // max(0, deadline - now): a late reading never goes negative.
        #expect(driver.scheduler.backgroundTimeRemaining(for: mail, now: at(40)) == .zero)
    }

    @Test func B4_warningCallsEveryHandlerOnceInBeginOrderAndLateTasksAtOnce() throws {
        var driver = makeDriver().launched(mail)
        let first = driver.beginTask("first", in: mail)
        let second = driver.beginTask("second", in: mail)
        let third = driver.beginTask("third", in: mail)
        try driver.endTask(second, in: mail)
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(25) - .nanoseconds(1))
        #expect(!driver.messages(to: mail).contains(.backgroundTaskWillExpire(first)))
        driver.advance(to: at(25))
        // Expected at t=25: first, third (second ended).
        let warnings = driver.deliveries(to: mail).filter {
            if case .backgroundTaskWillExpire = $0.message { return true }
            return false
        }
        #expect(warnings.map(\.message) == [.backgroundTaskWillExpire(first), .backgroundTaskWillExpire(third)])
        #expect(warnings.map(\.at) == [at(25), at(25)])
        driver.advance(to: at(27))
        let late = driver.beginTask("late", in: mail)
        #expect(driver.deliveries(to: mail).last?.message == .backgroundTaskWillExpire(late))
        #expect(driver.deliveries(to: mail).last?.at == at(27))
        driver.advance(to: at(29))
        #expect(driver.messages(to: mail).filter { $0 == .backgroundTaskWillExpire(first) }.count == 1)
    }

    @Test func B4_leadLongerThanTheBudgetWarnsAtEntry() throws {
        let settings = SchedulerSettings(backgroundTimeBudget: .seconds(3), expirationWarningLead: .seconds(5))
        var driver = makeDriver(settings: settings).launched(mail)
        let task = driver.beginTask("t", in: mail)
        driver.advance(to: at(1))
        try driver.send(.enterBackground, to: mail)
        #expect(driver.scheduler.nextWakeup == at(1))
        driver.advance(to: at(1))
        #expect(driver.deliveries(to: mail).last?.message == .backgroundTaskWillExpire(task))
        #expect(driver.deliveries(to: mail).last?.at == at(1))
    }

    @Test func B5_lastTaskEndingSuspendsAtOnce() throws {
        var driver = makeDriver().launched(mail)
        let a = driver.beginTask("a", in: mail)
        let b = driver.beginTask("b", in: mail)
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(3))
        try driver.endTask(a, in: mail)
        #expect(driver.state(mail) == .background)
        driver.advance(to: at(7))
        try driver.endTask(b, in: mail)
        #expect(driver.state(mail) == .suspended)
        #expect(driver.lastEvent(of: mail)?.at == at(7))
        #expect(driver.scheduler.nextWakeup == nil)
    }

    @Test func B5_noTaskWhenDidEnterBackgroundReturnsSuspendsRightThen() throws {
        var driver = makeDriver().launched(mail)
        driver.replies[mail] = ["didEnterBackground": .after(.seconds(2))]
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(2) - .nanoseconds(1))
        #expect(driver.state(mail) == .background)
        driver.advance(to: at(2))
        #expect(driver.state(mail) == .suspended)
        #expect(driver.lastEvent(of: mail)?.at == at(2))
    }

    @Test func B5_taskBegunDuringDidEnterBackgroundKeepsTheAppInTheBackground() throws {
        var driver = makeDriver().launched(mail)
        driver.replies[mail] = ["didEnterBackground": .after(.seconds(1))]
        try driver.send(.enterBackground, to: mail)
        let task = driver.beginTask("finish-upload", in: mail)
        driver.advance(to: at(5))
        #expect(driver.state(mail) == .background)
        try driver.endTask(task, in: mail)
        #expect(driver.state(mail) == .suspended)
    }

    @Test func B6_overrunTerminatesByDefault() throws {
        var driver = makeDriver().launched(mail)
        driver.beginTask("stuck", in: mail)
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(30) - .nanoseconds(1))
        #expect(driver.state(mail) == .background)
        driver.advance(to: at(30))
        #expect(driver.lastEvent(of: mail)?.cause == .terminated(.budgetOverrun))
        #expect(driver.lastEvent(of: mail)?.at == at(30))
    }

    @Test func B6_overrunSuspendPolicyEndsTasksAndSuspends() throws {
        var driver = makeDriver(settings: SchedulerSettings(overrunPolicy: .suspend)).launched(mail)
        let task = driver.beginTask("stuck", in: mail)
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(30))
        #expect(driver.state(mail) == .suspended)
        #expect(driver.lastEvent(of: mail)?.cause == .budgetExpired)
        #expect(
            driver.effects(on: mail).suffix(2) == [
                "t=30.000s endTasks(com.example.mail, [\(task)])", "t=30.000s suspend(com.example.mail)",
            ]
        )
        #expect(throws: SchedulerError.self) { try driver.endTask(task, in: mail) }
    }

    @Test func B6_deadlineWithNoTaskSuspends() throws {
        // didEnterBackground hangs longer than the budget; no task is held.
        let settings = SchedulerSettings(backgroundTimeBudget: .seconds(2), backgroundEntryGrace: .seconds(10))
        var driver = makeDriver(settings: settings).launched(mail)
        driver.replies[mail] = ["didEnterBackground": .never]
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(2))
        #expect(driver.state(mail) == .suspended)
        #expect(driver.lastEvent(of: mail)?.cause == .budgetExpired)
        #expect(driver.scheduler.nextWakeup == nil)
    }

    @Test func B7_foregroundStopsTheClockAndTheNextPeriodIsFresh() throws {
        var driver = makeDriver().launched(mail)
        let task = driver.beginTask("long", in: mail)
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(20))
        try driver.send(.enterForeground, to: mail)
        #expect(driver.scheduler.backgroundTimeRemaining(for: mail, now: driver.now) == .max)
        driver.advance(to: at(100))
        // No handler fired and the task is still valid.
        #expect(!driver.messages(to: mail).contains(.backgroundTaskWillExpire(task)))
        #expect(driver.scheduler.status(of: mail, now: driver.now)?.tasks.map(\.id) == [task])
        try driver.send(.enterBackground, to: mail)
        // A fresh 30 s budget from t=100, not the 10 s left over.
        #expect(driver.scheduler.status(of: mail, now: driver.now)?.deadline == at(130))
        driver.advance(to: at(126))
        #expect(driver.deliveries(to: mail).last?.at == at(125))
    }

    @Test func B8_endingAnUnknownEndedOrForeignTaskIsAnErrorAndChangesNothing() throws {
        var driver = makeDriver([AppDescriptor(id: mail), AppDescriptor(id: maps)]).launched(mail).launched(maps)
        let mine = driver.beginTask("mine", in: mail)
        let theirs = driver.beginTask("theirs", in: maps)
        try driver.endTask(mine, in: mail)
        func code(_ id: BackgroundTaskID, _ app: AppID) -> SchedulerError.Code? {
            do {
                try driver.endTask(id, in: app)
                return nil
            } catch {
                return error.code
            }
        }
        let before = driver.scheduler.status(now: driver.now)
        #expect(code(mine, mail) == .alreadyEnded)
        #expect(code(theirs, mail) == .wrongApp)
        #expect(code(.invalid, mail) == .unknownTask)
        #expect(code(BackgroundTaskID(rawValue: 999), mail) == .unknownTask)
        #expect(driver.scheduler.status(now: driver.now) == before)
        do {
            try driver.endTask(theirs, in: mail)
        } catch {
            #expect(
                error.description == "wrongApp: com.example.mail ended \(theirs), which belongs to com.example.maps"
            )
        }
        try driver.endTask(theirs, in: maps)
    }

    @Test func B9_handlersFireAtTheTickThatReachesTheirTimeNeverBefore() throws {
        var driver = makeDriver(settings: SchedulerSettings(backgroundTimeBudget: .nanoseconds(30_000_000_007)))
            .launched(mail)
        let task = driver.beginTask("t", in: mail)
        try driver.send(.enterBackground, to: mail)
        // Nanosecond resolution: the deadline is 30.000000007 s, the warning 5 s before it.
        let due = Instant(nanosecondsSinceOrigin: 25_000_000_007)
        let deadline = Instant(nanosecondsSinceOrigin: 30_000_000_007)
        #expect(driver.scheduler.nextWakeup == due)
        do {
            var scheduler = driver.scheduler
            #expect(scheduler.clockAdvanced(to: due - .nanoseconds(1)).isEmpty)
            let actions = scheduler.clockAdvanced(to: due)
            guard case .deliver(mail, .backgroundTaskWillExpire(task), _) = actions.first else {
                Issue.record("expected the expiration handler first, got \(actions)")
                return
            }
            #expect(actions.dropFirst().elementsEqual([.armWakeup(deadline)]))
        }
    }

    @Test func B10_equalDeadlinesAreServedInTheOrderTheyWereArmed() throws {
        var driver = makeDriver([AppDescriptor(id: maps), AppDescriptor(id: mail), AppDescriptor(id: music)])
        for app in [maps, mail, music] {
            try driver.send(.launch, to: app)
            driver.beginTask("t", in: app)
        }
        // Enter the background in the order mail, music, maps at the same instant: same deadlines.
        for app in [mail, music, maps] { try driver.send(.enterBackground, to: app) }
        driver.advance(to: at(25))
        let order = driver.actions.compactMap { entry -> AppID? in
            if case .deliver(let app, .backgroundTaskWillExpire, _) = entry.action { return app }
            return nil
        }
        #expect(order == [mail, music, maps])
        driver.advance(to: at(30))
        let terminations = driver.events.filter { $0.to == .notRunning }.map(\.app)
        #expect(terminations == [mail, music, maps])
    }
}
