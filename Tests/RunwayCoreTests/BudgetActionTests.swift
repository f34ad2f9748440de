@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

/// B4, B5, B6 (expiration warning, suspension at the last task's end, the deadline) and E1 (exits on suspend)
/// at the level of the action list. Defaults: budget 30 s, warning lead 5 s, grace 5 s.
@Suite struct BudgetActionTests {
    private func expire(_ task: BackgroundTaskID) -> Message { .backgroundTaskWillExpire(task) }

    // MARK: B4

    @Test func B4_handlersAreCalledOnceInBeginOrderAndATaskBegunAfterTheWarningGetsItsHandlerAtOnce() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        let first = scheduler.beginTask("a", in: mail, now: at(0))
        let ended = scheduler.beginTask("b", in: mail, now: at(0))
        let third = scheduler.beginTask("c", in: mail, now: at(0))
        #expect(try scheduler.backgroundTaskEnded(ended, by: mail, now: at(0)) == [])
        try scheduler.run(.enterBackground, for: mail, now: at(0))
        let warning = scheduler.clockAdvanced(to: at(25))
        // Expected at 30 - 5: the first task's handler alone (L2), then the wake-up moves to the deadline.
        #expect(
            warning == [
                .deliver(mail, self.expire(first), token(self.expire(first), to: mail, in: warning)),
                .armWakeup(at(30)),
            ]
        )
        let next = scheduler.acknowledge(self.expire(first), of: mail, in: warning, now: at(25))
        // Expected: the third task's handler; none for the ended one.
        #expect(next == [.deliver(mail, self.expire(third), token(self.expire(third), to: mail, in: next))])
        #expect(scheduler.acknowledge(self.expire(third), of: mail, in: next, now: at(26)) == [])
        let late = scheduler.backgroundTaskRequested(name: "d", by: mail, now: at(27))
        // Expected: the late task's handler at once.
        #expect(late.refusal == nil)
        let handler = self.expire(late.id)
        #expect(late.actions == [.deliver(mail, handler, token(handler, to: mail, in: late.actions))])
    }

    @Test func B4_warningIsAtEntryWhenTheLeadExceedsTheBudgetAndWaitsForDidEnterBackground() throws {
        var scheduler = try makeScheduler([AppDescriptor(id: mail, backgroundTimeBudget: .seconds(3))])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.resignActive, for: mail, now: at(0))
        let task = scheduler.beginTask("upload", in: mail, now: at(0))
        let other = try scheduler.commandReceived(.enterBackground, for: mail, now: at(10))
        // Expected: warning at max(10, 13 - 5) = 10, the earliest of warning (10), deadline (13), grace (15).
        #expect(
            other == [
                published(mail, .inactive, .background, .command(.enterBackground), at: at(10), [.didEnterBackground]),
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: other)),
                .armWakeup(at(10)),
            ]
        )
        // Expected: the handler is queued behind didEnterBackground (L2); the wake-up moves to the deadline.
        #expect(scheduler.clockAdvanced(to: at(10)) == [.armWakeup(at(13))])
        let returned = scheduler.acknowledge(.didEnterBackground, of: mail, in: other, now: at(11))
        // Expected: the handler once didEnterBackground returned.
        #expect(returned == [.deliver(mail, self.expire(task), token(self.expire(task), to: mail, in: returned))])
        #expect(scheduler.acknowledge(self.expire(task), of: mail, in: returned, now: at(12)) == [])
        // Expected: overrun at 13.
        #expect(
            scheduler.clockAdvanced(to: at(13)) == [
                .stop(mail),
                .endTasks(mail, [task]),
                published(mail, .background, .notRunning, .terminated(.budgetOverrun), at: at(13)),
                .cancelWakeup,
            ]
        )
    }

    @Test func B4_withAZeroLeadTheHandlerIsDeliveredBeforeTheDeadlineInTheSameBatch() throws {
        var scheduler = try makeScheduler(settings: SchedulerSettings(expirationWarningLead: .zero))
        try scheduler.run(.launch, for: mail, now: at(0))
        let task = scheduler.beginTask("upload", in: mail, now: at(0))
        let home = try scheduler.run(.enterBackground, for: mail, now: at(0))
        #expect(home.last == .armWakeup(at(30)))
        let due = scheduler.clockAdvanced(to: at(30))
        // Expected at 30: warning first (armed first, B10): the handler; then the deadline: overrun.
        #expect(
            due == [
                .deliver(mail, self.expire(task), token(self.expire(task), to: mail, in: due)),
                .stop(mail),
                .endTasks(mail, [task]),
                published(mail, .background, .notRunning, .terminated(.budgetOverrun), at: at(30)),
                .cancelWakeup,
            ]
        )
    }

    // MARK: B5

    @Test func B5_theAppIsSuspendedWhenItsLastTaskEnds() throws {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        let first = scheduler.beginTask("a", in: mail, now: at(0))
        let second = scheduler.beginTask("b", in: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(0))
        // Expected: one task left: nothing.
        #expect(try scheduler.backgroundTaskEnded(second, by: mail, now: at(3)) == [])
        // Expected: the last one: suspend, publish, cancel the wake-up (warning at 25, deadline at 30).
        #expect(
            try scheduler.backgroundTaskEnded(first, by: mail, now: at(4)) == [
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(4)),
                .setOOMScoreAdjust(mail, 1000),
                .cancelWakeup,
            ]
        )
    }

    // MARK: B6

    @Test func B6_atTheDeadlineWithNoTaskTheAppIsSuspendedAndItsPendingMessageAbandoned() throws {
        let settings = SchedulerSettings(backgroundEntryGrace: .seconds(60))
        var scheduler = try makeScheduler(settings: settings)
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.resignActive, for: mail, now: at(0))
        let other = try scheduler.commandReceived(.enterBackground, for: mail, now: at(0))
        // Expected: warning (25) before the grace (60).
        #expect(other.last == .armWakeup(at(25)))
        // Expected: no task to warn: only the wake-up moves.
        #expect(scheduler.clockAdvanced(to: at(25)) == [.armWakeup(at(30))])
        // Expected: didEnterBackground never returned and no task: suspend at the deadline; the grace goes too.
        #expect(
            scheduler.clockAdvanced(to: at(30)) == [
                .suspend(mail),
                published(mail, .background, .suspended, .budgetExpired, at: at(30)),
                .cancelWakeup,
            ]
        )
        #expect(scheduler.acknowledge(.didEnterBackground, of: mail, in: other, now: at(31)) == [])
    }

    @Test func B6_overrunWithSuspendPolicyEndsTheTasksThenSuspends() throws {
        var scheduler = try makeScheduler([protocolApp], settings: SchedulerSettings(overrunPolicy: .suspend))
        try scheduler.run(.launch, for: mail, now: at(0))
        let task = scheduler.beginTask("upload", in: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(0))
        scheduler.acknowledgeAll(scheduler.clockAdvanced(to: at(25)), now: at(25))
        // Expected: end the task, suspend, publish background -> suspended, cancel the wake-up.
        #expect(
            scheduler.clockAdvanced(to: at(30)) == [
                .endTasks(mail, [task]),
                .suspend(mail),
                published(mail, .background, .suspended, .budgetExpired, at: at(30)),
                .setOOMScoreAdjust(mail, 1000),
                .cancelWakeup,
            ]
        )
    }

    // MARK: E1

    @Test func E2_drainStyleSendsWillTerminateWhereItWouldBeSuspended() throws {
        var scheduler = try makeScheduler([AppDescriptor(id: mail, exitsOnSuspend: true, exitsOnSuspendStyle: .drain)])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.resignActive, for: mail, now: at(0))
        let other = try scheduler.commandReceived(.enterBackground, for: mail, now: at(10))
        // Expected: an ordinary background entry.
        #expect(
            other == [
                published(mail, .inactive, .background, .command(.enterBackground), at: at(10), [.didEnterBackground]),
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: other)),
                .armWakeup(at(15)),
            ]
        )
        let returned = scheduler.acknowledge(.didEnterBackground, of: mail, in: other, now: at(11))
        // Expected: no suspend: willTerminate, its grace 11 + 5.
        #expect(
            returned == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: returned)),
                .armWakeup(at(16)),
            ]
        )
        // Expected: stop, publish background -> notRunning, reason exitsOnSuspend.
        #expect(
            scheduler.acknowledge(.willTerminate, of: mail, in: returned, now: at(12)) == [
                .stop(mail),
                published(mail, .background, .notRunning, .terminated(.exitsOnSuspend), at: at(12), [.willTerminate]),
                .cancelWakeup,
            ]
        )
    }

    @Test func E2_drainStyleProcessGetsWillTerminateWhenItsLastTaskEndsThenSIGTERMAndSIGKILLAtItsGrace() throws {
        let descriptor = AppDescriptor(
            id: mail,
            kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"], speaksProtocol: true)),
            exitsOnSuspend: true,
            exitsOnSuspendStyle: .drain
        )
        var scheduler = try makeScheduler([descriptor])
        try scheduler.run(.launch, for: mail, now: at(0))
        let task = scheduler.beginTask("drain", in: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(0))
        let ended = try scheduler.backgroundTaskEnded(task, by: mail, now: at(4))
        // Expected: willTerminate, its grace 4 + 5 replacing the budget's warning.
        #expect(
            ended == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: ended)),
                .armWakeup(at(9)),
            ]
        )
        // Expected: SIGTERM; SIGKILL falls at the end of willTerminate's grace, 4 + 5 (L4: one grace in all), so the
        // wake-up already armed at 9 stays.
        #expect(scheduler.acknowledge(.willTerminate, of: mail, in: ended, now: at(5)) == [.sendTerminateSignal(mail)])
        // Expected: nothing before 9 (B9); at 9, SIGKILL and no wake-up left.
        #expect(scheduler.clockAdvanced(to: at(9) - .nanoseconds(1)) == [])
        #expect(scheduler.clockAdvanced(to: at(9)) == [.kill(mail), .cancelWakeup])
    }

    @Test func E2_drainStyleAtTheDeadlineWithSuspendPolicyEndsTheTasksThenSendsWillTerminate() throws {
        let settings = SchedulerSettings(overrunPolicy: .suspend)
        let drain = AppDescriptor(id: mail, exitsOnSuspend: true, exitsOnSuspendStyle: .drain)
        var scheduler = try makeScheduler([drain], settings: settings)
        try scheduler.run(.launch, for: mail, now: at(0))
        let task = scheduler.beginTask("stuck", in: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(0))
        scheduler.acknowledgeAll(scheduler.clockAdvanced(to: at(25)), now: at(25))
        let deadline = scheduler.clockAdvanced(to: at(30))
        // Expected: end the task, willTerminate, its grace 30 + 5.
        #expect(
            deadline == [
                .endTasks(mail, [task]),
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: deadline)),
                .armWakeup(at(35)),
            ]
        )
    }

    @Test func E1_immediateStyleIsInactiveWhileItsWillTerminateRunsAndNeverEntersTheBackground() throws {
        let descriptor = AppDescriptor(id: mail, exitsOnSuspend: true, exitsOnSuspendStyle: .immediate)
        var scheduler = try makeScheduler([descriptor])
        // Expected: no launch into the background, no task.
        let error = #expect(throws: SchedulerError.self) {
            try scheduler.commandReceived(.launchInBackground, for: mail, now: at(0))
        }
        let named = SchedulerError(.illegalCommand, app: mail, state: .notRunning, command: .launchInBackground)
        #expect(error.map(unlocated) == unlocated(named))
        try scheduler.run(.launch, for: mail, now: at(0))
        let refused = scheduler.backgroundTaskRequested(name: "upload", by: mail, now: at(0))
        #expect(refused.id == .invalid)
        #expect(refused.refusal == .exitsOnSuspendImmediately)
        #expect(refused.actions == [])
        let home = try scheduler.commandReceived(.enterBackground, for: mail, now: at(10))
        // Expected: the resignation is a transition of its own, published first (active -> inactive, the cause is the
        // termination); then willResignActive, grace 15.
        #expect(
            home == [
                published(mail, .active, .inactive, .terminated(.exitsOnSuspend), at: at(10), [.willResignActive]),
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: home)),
                .armWakeup(at(15)),
            ]
        )
        #expect(scheduler.state(of: mail) == .inactive)
        #expect(scheduler.isTerminating(mail))
        let resigned = scheduler.acknowledge(.willResignActive, of: mail, in: home, now: at(11))
        // Expected: willTerminate (no didEnterBackground), grace 11 + 5.
        #expect(
            resigned == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: resigned)),
                .armWakeup(at(16)),
            ]
        )
        #expect(scheduler.state(of: mail) == .inactive)
        // Expected: stop, publish inactive -> notRunning with willTerminate alone, reason exitsOnSuspend.
        #expect(
            scheduler.acknowledge(.willTerminate, of: mail, in: resigned, now: at(12)) == [
                .stop(mail),
                published(mail, .inactive, .notRunning, .terminated(.exitsOnSuspend), at: at(12), [.willTerminate]),
                .cancelWakeup,
            ]
        )
    }

    @Test func E1_immediateStyleFromInactiveSendsOnlyWillTerminate() throws {
        let settings = SchedulerSettings(exitsOnSuspendStyle: .immediate)
        var scheduler = try makeScheduler([AppDescriptor(id: mail, exitsOnSuspend: true)], settings: settings)
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.resignActive, for: mail, now: at(0))
        let other = try scheduler.commandReceived(.enterBackground, for: mail, now: at(10))
        // Expected: willTerminate, one wake-up at 15.
        #expect(
            other == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: other)),
                .armWakeup(at(15)),
            ]
        )
    }
}
