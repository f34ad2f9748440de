@_spi(Driver) import RunwayCore
import Testing

/// B6 and B11: a process app that overruns its budget is killed at the deadline, with SIGTERM before it only when
/// `overrunSignalLead` asks for one, inside the budget. Defaults: budget 30 s, warning lead 5 s, TerminationGrace
/// 5 s; the notice tests set a lead of 2 s unless they say otherwise.
@Suite struct OverrunNoticeTests {
    private static func settings(lead: TimeSpan, policy: OverrunPolicy = .terminate) -> SchedulerSettings {
        var settings = SchedulerSettings(overrunPolicy: policy)
        settings.overrunSignalLead = lead
        return settings
    }

    /// Launched at 0 with one task, in the background at 0 with `didEnterBackground` returned.
    private static func backgroundedWithTask(
        _ descriptor: AppDescriptor = protocolApp,
        settings: SchedulerSettings
    ) throws -> (Scheduler, BackgroundTaskID) {
        var scheduler = try makeScheduler([descriptor], settings: settings)
        try scheduler.run(.launch, for: descriptor.id, now: at(0))
        let task = scheduler.beginTask("upload", in: descriptor.id, now: at(0))
        try scheduler.run(.enterBackground, for: descriptor.id, now: at(0))
        return (scheduler, task)
    }

    @Test(arguments: [true, false])
    func B6_overrunningProcessIsKilledAtTheDeadlineWithoutSIGTERM(speaksProtocol: Bool) throws {
        let app = process(mail, speaksProtocol: speaksProtocol)
        var (scheduler, task) = try Self.backgroundedWithTask(app, settings: SchedulerSettings())
        scheduler.acknowledgeAll(scheduler.clockAdvanced(to: at(25)), now: at(25))
        #expect(scheduler.clockAdvanced(to: at(30) - .nanoseconds(1)) == [])
        // Expected at the deadline: SIGKILL, no SIGTERM and no grace timer; the wake-up is cancelled.
        #expect(scheduler.clockAdvanced(to: at(30)) == [.kill(mail), .cancelWakeup])
        scheduler.checkInvariants()
        #expect(scheduler.status(of: mail, now: at(30))?.terminating == .budgetOverrun)
        // Expected: the tasks end with the process, reason budgetOverrun.
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(30)) == [
                .endTasks(mail, [task]),
                published(mail, .background, .notRunning, .terminated(.budgetOverrun), at: at(30), exit: .signaled(9)),
            ]
        )
    }

    @Test func B6_appOverrunPolicyOverridesTheSchedulers() throws {
        var killed = protocolApp
        killed.overrunPolicy = .terminate
        var (scheduler, _) = try Self.backgroundedWithTask(killed, settings: SchedulerSettings(overrunPolicy: .suspend))
        scheduler.acknowledgeAll(scheduler.clockAdvanced(to: at(25)), now: at(25))
        // Expected: the app's terminate wins over the scheduler's suspend: SIGKILL at the deadline.
        #expect(scheduler.clockAdvanced(to: at(30)) == [.kill(mail), .cancelWakeup])

        var suspended = protocolApp
        suspended.overrunPolicy = .suspend
        var (other, task) = try Self.backgroundedWithTask(suspended, settings: SchedulerSettings())
        other.acknowledgeAll(other.clockAdvanced(to: at(25)), now: at(25))
        // Expected: the app's suspend wins over the scheduler's terminate: tasks ended, app suspended.
        let due = other.clockAdvanced(to: at(30))
        #expect(due.first == .endTasks(mail, [task]))
        #expect(due.contains(.suspend(mail)))
        #expect(!due.contains(.kill(mail)))
        #expect(other.state(of: mail) == .suspended)
    }

    @Test func B11_noticeSendsSIGTERMInsideTheBudgetAndSIGKILLFollowsAtTheDeadline() throws {
        var (scheduler, task) = try Self.backgroundedWithTask(settings: Self.settings(lead: .seconds(2)))
        // Expected order: warning at 30 - 5, notice at 30 - 2, SIGKILL at 30.
        let warning = scheduler.clockAdvanced(to: at(25))
        let expire = Message.backgroundTaskWillExpire(task)
        #expect(warning == [.deliver(mail, expire, token(expire, to: mail, in: warning)), .armWakeup(at(28))])
        #expect(scheduler.acknowledge(expire, of: mail, in: warning, now: at(26)) == [])
        #expect(scheduler.clockAdvanced(to: at(28) - .nanoseconds(1)) == [])
        // Expected: SIGTERM with no message; the app stays in the background, its budget runs on.
        #expect(scheduler.clockAdvanced(to: at(28)) == [.sendTerminateSignal(mail), .armWakeup(at(30))])
        #expect(scheduler.state(of: mail) == .background)
        #expect(scheduler.status(of: mail, now: at(28))?.terminating == nil)
        scheduler.checkInvariants()
        #expect(scheduler.clockAdvanced(to: at(30)) == [.kill(mail), .cancelWakeup])
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(30)) == [
                .endTasks(mail, [task]),
                published(mail, .background, .notRunning, .terminated(.budgetOverrun), at: at(30), exit: .signaled(9)),
            ]
        )
    }

    @Test func B11_aLeadLongerThanTheWarningsSendsSIGTERMBeforeTheWarning() throws {
        var (scheduler, task) = try Self.backgroundedWithTask(settings: Self.settings(lead: .seconds(10)))
        // Expected: the notice at 30 - 10 comes before the warning at 30 - 5.
        #expect(scheduler.clockAdvanced(to: at(20)) == [.sendTerminateSignal(mail), .armWakeup(at(25))])
        let warning = scheduler.clockAdvanced(to: at(25))
        let expire = Message.backgroundTaskWillExpire(task)
        #expect(warning == [.deliver(mail, expire, token(expire, to: mail, in: warning)), .armWakeup(at(30))])
    }

    @Test func B11_atTheWarningsInstantTheWarningIsDeliveredBeforeSIGTERM() throws {
        var (scheduler, task) = try Self.backgroundedWithTask(settings: Self.settings(lead: .seconds(5)))
        // Expected at 25: the warning first (armed first, B10), then SIGTERM.
        let due = scheduler.clockAdvanced(to: at(25))
        let expire = Message.backgroundTaskWillExpire(task)
        #expect(
            due == [
                .deliver(mail, expire, token(expire, to: mail, in: due)), .sendTerminateSignal(mail),
                .armWakeup(at(30)),
            ]
        )
    }

    @Test func B11_aLeadBeyondTheAppsBudgetSendsSIGTERMAtEntry() throws {
        var short = protocolApp
        short.backgroundTimeBudget = .seconds(1)
        var (scheduler, _) = try Self.backgroundedWithTask(short, settings: Self.settings(lead: .seconds(2)))
        // Expected: the notice is not armed before the entry (0); it fires on the next turn, then SIGKILL at 1.
        #expect(scheduler.armedTimers.map(\.kind) == ["expirationWarning", "overrunNotice", "budgetDeadline"])
        #expect(scheduler.clockAdvanced(to: at(0)).contains(.sendTerminateSignal(mail)))
        #expect(scheduler.clockAdvanced(to: at(1)).first == .kill(mail))
    }

    @Test func B11_anAppThatEndsItsTasksAfterTheNoticeIsSuspendedNotKilled() throws {
        var (scheduler, task) = try Self.backgroundedWithTask(settings: Self.settings(lead: .seconds(2)))
        scheduler.acknowledgeAll(scheduler.clockAdvanced(to: at(25)), now: at(25))
        #expect(scheduler.clockAdvanced(to: at(28)).first == .sendTerminateSignal(mail))
        let ended = try scheduler.backgroundTaskEnded(task, by: mail, now: at(29))
        // Expected: B5 suspends it at its last end; no deadline is left, so nothing happens at 30.
        #expect(ended.contains(.suspend(mail)))
        #expect(scheduler.state(of: mail) == .suspended)
        #expect(scheduler.clockAdvanced(to: at(30)) == [])
    }

    @Test func B11_noticeIsNotSentToAnAppThatHoldsNoTask() throws {
        var settings = Self.settings(lead: .seconds(2))
        settings.backgroundEntryGrace = .seconds(60)
        var scheduler = try makeScheduler([protocolApp], settings: settings)
        try scheduler.run(.launch, for: mail, now: at(0))
        // didEnterBackground is left in flight, so the app stays in the background without a task (B5).
        let home = try scheduler.commandReceived(.enterBackground, for: mail, now: at(0))
        _ = scheduler.acknowledge(.willResignActive, of: mail, in: home, now: at(0))
        #expect(scheduler.clockAdvanced(to: at(25)) == [.armWakeup(at(28))])
        // Expected at 28: no SIGTERM, only the wake-up moved to the deadline.
        #expect(scheduler.clockAdvanced(to: at(28)) == [.armWakeup(at(30))])
        #expect(scheduler.state(of: mail) == .background)
    }

    @Test func B11_noticeMovesWithAnExtendedDeadline() throws {
        var (scheduler, _) = try Self.backgroundedWithTask(settings: Self.settings(lead: .seconds(2)))
        // Expected: the deadline moves to 40, the warning to 35 and the notice to 38.
        #expect(try scheduler.budgetExtended(by: .seconds(10), for: mail, now: at(10)) == [.armWakeup(at(35))])
        scheduler.checkInvariants()
        let armed = scheduler.armedTimers.map { "\($0.kind) \($0.deadline)" }
        #expect(armed == ["expirationWarning \(at(35))", "overrunNotice \(at(38))", "budgetDeadline \(at(40))"])
        scheduler.acknowledgeAll(scheduler.clockAdvanced(to: at(35)), now: at(35))
        #expect(scheduler.clockAdvanced(to: at(38)) == [.sendTerminateSignal(mail), .armWakeup(at(40))])
    }

    @Test func B11_anOperatorExpiryKillsWithoutANotice() throws {
        var (scheduler, _) = try Self.backgroundedWithTask(settings: Self.settings(lead: .seconds(2)))
        // Expected: the deadline is now; a notice would fall on it, so none is sent: the warning, then SIGKILL.
        #expect(try scheduler.budgetExpiredByOperator(for: mail, now: at(10)) == [.armWakeup(at(10))])
        #expect(scheduler.armedTimers.map(\.kind) == ["expirationWarning", "budgetDeadline"])
        let due = scheduler.clockAdvanced(to: at(10))
        #expect(!due.contains(.sendTerminateSignal(mail)))
        #expect(due.contains(.kill(mail)))
    }

    @Test func B11_noNoticeForEmbeddedAppsUnderSuspendOrWithoutALead() throws {
        for (descriptor, settings) in [
            (AppDescriptor(id: mail), Self.settings(lead: .seconds(2))),
            (protocolApp, Self.settings(lead: .seconds(2), policy: .suspend)),
            (protocolApp, Self.settings(lead: .zero)),
        ] {
            let (scheduler, _) = try Self.backgroundedWithTask(descriptor, settings: settings)
            #expect(scheduler.armedTimers.map(\.kind) == ["expirationWarning", "budgetDeadline"])
        }
    }
}
