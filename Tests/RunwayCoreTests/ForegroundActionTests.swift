@_spi(Driver) import RunwayCore
import Testing

/// The `enterForeground` rows of the table of Behaviour.md section 2 (background, suspended -> active) as the exact
/// action list of every call, with B7 (the clock stops in the foreground) and N1 (held notifications).
@Suite struct ForegroundActionTests {
    /// `app` launched at t=0 and in the background from t=1, every message returned at once: suspended at t=1.
    private func suspended(_ descriptor: AppDescriptor) throws -> Scheduler {
        var scheduler = try makeScheduler([descriptor])
        try scheduler.run(.launch, for: descriptor.id, now: at(0))
        try scheduler.run(.enterBackground, for: descriptor.id, now: at(1))
        #expect(scheduler.state(of: descriptor.id) == .suspended)
        return scheduler
    }

    @Test func S3_summonSuspendedEmbeddedResumesThenSendsWillEnterForegroundThenDidBecomeActive() throws {
        var scheduler = try self.suspended(AppDescriptor(id: mail))
        let summon = try scheduler.commandReceived(.enterForeground, for: mail, now: at(5))
        // Expected: resume (release held work), publish suspended -> active, willEnterForeground; no wake-up.
        #expect(
            summon == [
                .resume(mail),
                published(
                    mail,
                    .suspended,
                    .active,
                    .command(.enterForeground),
                    at: at(5),
                    [.willEnterForeground, .didBecomeActive]
                ),
                .deliver(mail, .willEnterForeground, token(.willEnterForeground, to: mail, in: summon)),
            ]
        )
        let entered = scheduler.acknowledge(.willEnterForeground, of: mail, in: summon, now: at(6))
        // Expected: didBecomeActive.
        #expect(entered == [.deliver(mail, .didBecomeActive, token(.didBecomeActive, to: mail, in: entered))])
        #expect(scheduler.acknowledge(.didBecomeActive, of: mail, in: entered, now: at(7)) == [])
    }

    @Test func S3_summonSuspendedProtocolProcessResumesFirst() throws {
        var scheduler = try self.suspended(protocolApp)
        let summon = try scheduler.commandReceived(.enterForeground, for: mail, now: at(5))
        // Expected: resume (thaw or SIGCONT), publish, willEnterForeground.
        #expect(
            summon == [
                .resume(mail),
                published(
                    mail,
                    .suspended,
                    .active,
                    .command(.enterForeground),
                    at: at(5),
                    [.willEnterForeground, .didBecomeActive]
                ),
                .setOOMScoreAdjust(mail, 0),
                .deliver(mail, .willEnterForeground, token(.willEnterForeground, to: mail, in: summon)),
            ]
        )
        let entered = scheduler.acknowledge(.willEnterForeground, of: mail, in: summon, now: at(5))
        // Expected: didBecomeActive.
        #expect(entered == [.deliver(mail, .didBecomeActive, token(.didBecomeActive, to: mail, in: entered))])
    }

    @Test func S3_summonSuspendedPlainProcessResumesAndPublishes() throws {
        var scheduler = try self.suspended(plainApp)
        // Expected: resume, publish; nothing delivered.
        #expect(
            try scheduler.commandReceived(.enterForeground, for: mail, now: at(5)) == [
                .resume(mail),
                published(
                    mail,
                    .suspended,
                    .active,
                    .command(.enterForeground),
                    at: at(5),
                    [.willEnterForeground, .didBecomeActive]
                ),
                .setOOMScoreAdjust(mail, 0),
            ]
        )
    }

    @Test func B7_enterForegroundFromBackgroundStopsTheClockAndTheNextPeriodHasAFreshBudget() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        let task = scheduler.beginTask("upload", in: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        #expect(scheduler.state(of: mail) == .background)
        let summon = try scheduler.commandReceived(.enterForeground, for: mail, now: at(5))
        // Expected: no resume (not suspended), publish background -> active, willEnterForeground, and the
        // warning (26) and deadline (31) are disarmed: cancel the wake-up.
        #expect(
            summon == [
                published(
                    mail,
                    .background,
                    .active,
                    .command(.enterForeground),
                    at: at(5),
                    [.willEnterForeground, .didBecomeActive]
                ),
                .deliver(mail, .willEnterForeground, token(.willEnterForeground, to: mail, in: summon)),
                .cancelWakeup,
            ]
        )
        scheduler.acknowledgeAll(summon, now: at(5))
        // Expected: nothing fires at the old warning or deadline.
        #expect(scheduler.clockAdvanced(to: at(40)) == [])
        let home = try scheduler.commandReceived(.enterBackground, for: mail, now: at(50))
        // Expected: a fresh budget from t=50: wake-up at its warning 50 + 30 - 5; the task is still held.
        #expect(
            home == [
                published(
                    mail,
                    .active,
                    .background,
                    .command(.enterBackground),
                    at: at(50),
                    [.willResignActive, .didEnterBackground]
                ),
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: home)),
                .armWakeup(at(75)),
            ]
        )
        scheduler.acknowledgeAll(home, now: at(50))
        // Expected: the task's ended in the background: suspend, publish, cancel the wake-up (B5).
        #expect(
            try scheduler.backgroundTaskEnded(task, by: mail, now: at(51)) == [
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(51)),
                .cancelWakeup,
            ]
        )
    }

    @Test func L2_enterForegroundWhileDidEnterBackgroundIsInFlightWaitsForItsReturn() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.resignActive, for: mail, now: at(0))
        let other = try scheduler.commandReceived(.enterBackground, for: mail, now: at(1))
        let summon = try scheduler.commandReceived(.enterForeground, for: mail, now: at(2))
        // Expected: publish background -> active, no delivery while didEnterBackground is in flight, and the
        // grace (6), warning (26) and deadline (31) are disarmed: cancel the wake-up.
        #expect(
            summon == [
                published(
                    mail,
                    .background,
                    .active,
                    .command(.enterForeground),
                    at: at(2),
                    [.willEnterForeground, .didBecomeActive]
                ),
                .cancelWakeup,
            ]
        )
        let returned = scheduler.acknowledge(.didEnterBackground, of: mail, in: other, now: at(3))
        // Expected: willEnterForeground, only now; no suspension (the app is active).
        #expect(
            returned == [
                .deliver(mail, .willEnterForeground, token(.willEnterForeground, to: mail, in: returned))
            ]
        )
        #expect(scheduler.state(of: mail) == .active)
    }

    @Test func N1_heldNotificationsAreDeliveredBetweenWillEnterForegroundAndDidBecomeActive() throws {
        var scheduler = try self.suspended(AppDescriptor(id: mail))
        // Expected: held, not delivered; the same name coalesces (last payload wins, first position kept).
        for (name, payload) in [("sync", "1"), ("badge", "3"), ("sync", "2")] {
            let posted = try scheduler.notificationPosted(name: name, payload: payload, to: mail, now: at(2))
            #expect(posted.evicted == nil)
            #expect(posted.actions == [])
        }
        let sync = Message.notification(name: "sync", payload: "2")
        let badge = Message.notification(name: "badge", payload: "3")
        let summon = try scheduler.commandReceived(.enterForeground, for: mail, now: at(5))
        // Expected: resume, publish with the notifications in the message list, willEnterForeground.
        #expect(
            summon == [
                .resume(mail),
                published(
                    mail,
                    .suspended,
                    .active,
                    .command(.enterForeground),
                    at: at(5),
                    [.willEnterForeground, sync, badge, .didBecomeActive]
                ),
                .deliver(mail, .willEnterForeground, token(.willEnterForeground, to: mail, in: summon)),
            ]
        )
        // Expected: then sync, badge and didBecomeActive, each after the previous one returned.
        let first = scheduler.acknowledge(.willEnterForeground, of: mail, in: summon, now: at(6))
        #expect(first == [.deliver(mail, sync, token(sync, to: mail, in: first))])
        let second = scheduler.acknowledge(sync, of: mail, in: first, now: at(6))
        #expect(second == [.deliver(mail, badge, token(badge, to: mail, in: second))])
        let third = scheduler.acknowledge(badge, of: mail, in: second, now: at(6))
        #expect(third == [.deliver(mail, .didBecomeActive, token(.didBecomeActive, to: mail, in: third))])
        #expect(scheduler.acknowledge(.didBecomeActive, of: mail, in: third, now: at(6)) == [])
    }
}
