@_spi(Driver) import RunwayCore
import Testing

/// L8 with section 4: a transition caused by a user action reports the action asked (`TransitionEvent.userAction`)
/// beside the command it stood for (`cause`), so that `home` is not reported back as a bare `enterBackground`.
/// Exact action lists on a manual clock; budget 30 s, lead 5 s, graces 5 s.
@Suite struct UserActionReportTests {
    @Test func L8_homeIsReportedAsHomeBesideItsCommandAndTheLaterSuspensionAsNoUserAction() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        let home = try scheduler.userActionReceived(.home, for: mail, now: at(1))
        // Expected: publish active -> background with cause enterBackground and userAction home; the warning at
        // 1 + 30 - 5.
        #expect(
            home == [
                published(
                    mail,
                    .active,
                    .background,
                    .command(.enterBackground),
                    at: at(1),
                    [.willResignActive, .didEnterBackground],
                    asked: .home
                ),
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: home)),
                .armWakeup(at(26)),
            ]
        )
        let resigned = scheduler.acknowledge(.willResignActive, of: mail, in: home, now: at(1))
        // Expected: the suspension when didEnterBackground returns with no task is the app's doing, not the user's.
        let suspended = scheduler.acknowledge(.didEnterBackground, of: mail, in: resigned, now: at(2))
        #expect(
            suspended == [
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(2)),
                .cancelWakeup,
            ]
        )
        // Expected: summon reports summon beside enterForeground.
        let summon = try scheduler.userActionReceived(.summon, for: mail, now: at(3))
        #expect(
            summon.contains(
                published(
                    mail,
                    .suspended,
                    .active,
                    .command(.enterForeground),
                    at: at(3),
                    [.willEnterForeground, .didBecomeActive],
                    asked: .summon
                )
            )
        )
    }

    @Test func L8_theSameCommandSentAsACommandReportsNoUserAction() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        let background = try scheduler.commandReceived(.enterBackground, for: mail, now: at(1))
        #expect(
            background.first
                == published(
                    mail,
                    .active,
                    .background,
                    .command(.enterBackground),
                    at: at(1),
                    [.willResignActive, .didEnterBackground]
                )
        )
    }

    @Test func L8_homeOnAnImmediateExitsOnSuspendAppReportsHomeOnTheTransitionItCauses() throws {
        var scheduler = try makeScheduler([
            AppDescriptor(id: mail, exitsOnSuspend: true, exitsOnSuspendStyle: .immediate)
        ])
        try scheduler.run(.launch, for: mail, now: at(0))
        let home = try scheduler.userActionReceived(.home, for: mail, now: at(1))
        // Expected: the resignation of the termination that home started reports home; grace at 6.
        #expect(
            home == [
                published(
                    mail,
                    .active,
                    .inactive,
                    .terminated(.exitsOnSuspend),
                    at: at(1),
                    [.willResignActive],
                    asked: .home
                ),
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: home)),
                .armWakeup(at(6)),
            ]
        )
    }

    @Test func L8_aDeviceEventReportsItsUserActionOnEveryAppItReachesOnly() throws {
        var scheduler = try makeScheduler([AppDescriptor(id: mail), AppDescriptor(id: maps)])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.launch, for: maps, now: at(0))
        let lock = scheduler.deviceEventReceived(.lock, now: at(1))
        #expect(lock.apps == [mail, maps])
        let events = lock.actions.compactMap { action -> TransitionEvent? in
            guard case .publish(let event) = action else { return nil }
            return event
        }
        #expect(events.map(\.app) == [mail, maps])
        #expect(events.map(\.userAction) == [.lock, .lock])
        #expect(events.map(\.cause) == [.command(.resignActive), .command(.resignActive)])
    }
}
