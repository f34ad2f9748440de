@_spi(Driver) import RunwayCore
import Testing

/// L10: interruptions stack. Under the modern lock, an unlock while an alert is still open brings the app back
/// inactive; the alert's closing event decides the rest. Exact action lists, defaults (budget 30 s, lead 5 s, grace
/// 5 s).
@Suite struct InterruptionActionTests {
    private let modern = SchedulerSettings(lockBehavior: .modern)

    /// mail active at 0, then an alert at 1 and a modern lock at 2: suspended at 2, still held by the alert.
    private func lockedDuringAnAlert() throws -> Scheduler {
        var scheduler = try makeScheduler(settings: self.modern)
        try scheduler.run(.launch, for: mail, now: at(0))
        let alert = scheduler.deviceEventReceived(.alert, now: at(1))
        #expect(alert.apps == [mail])
        scheduler.acknowledgeAll(alert.actions, now: at(1))
        let lock = scheduler.deviceEventReceived(.lock, now: at(2))
        #expect(lock.apps == [mail])
        scheduler.acknowledgeAll(lock.actions, now: at(2))
        #expect(scheduler.state(of: mail) == .suspended)
        return scheduler
    }

    @Test func L10_aModernUnlockWhileAnAlertIsOpenResumesTheAppInactiveUntilTheAlertCloses() throws {
        var scheduler = try self.lockedDuringAnAlert()
        let unlock = scheduler.deviceEventReceived(.unlock, now: at(3))
        // Expected at 3: resume, suspended -> inactive with willEnterForeground alone; no didBecomeActive.
        #expect(unlock.apps == [mail])
        #expect(
            unlock.actions == [
                .resume(mail),
                published(
                    mail,
                    .suspended,
                    .inactive,
                    .command(.enterForeground),
                    at: at(3),
                    [.willEnterForeground],
                    asked: .unlock
                ),
                .deliver(mail, .willEnterForeground, token(.willEnterForeground, to: mail, in: unlock.actions)),
            ]
        )
        #expect(scheduler.acknowledgeAll(unlock.actions, now: at(3)) == [])
        #expect(scheduler.state(of: mail) == .inactive)
        // Expected at 4: the alert is ignored: inactive -> active, didBecomeActive.
        let ignored = scheduler.deviceEventReceived(.alertIgnored, now: at(4))
        #expect(ignored.apps == [mail])
        #expect(
            ignored.actions == [
                published(
                    mail,
                    .inactive,
                    .active,
                    .command(.activate),
                    at: at(4),
                    [.didBecomeActive],
                    asked: .alertIgnored
                ),
                .deliver(mail, .didBecomeActive, token(.didBecomeActive, to: mail, in: ignored.actions)),
            ]
        )
    }

    @Test func L10_anAlertAnsweredAfterTheUnlockSendsTheAppToTheBackground() throws {
        var scheduler = try self.lockedDuringAnAlert()
        scheduler.acknowledgeAll(scheduler.deviceEventReceived(.unlock, now: at(3)).actions, now: at(3))
        let answered = scheduler.deviceEventReceived(.alertAnswered, now: at(4))
        // Expected at 4: inactive -> background, didEnterBackground only; the warning at 4 + 30 - 5.
        #expect(answered.apps == [mail])
        #expect(
            answered.actions.prefix(1) == [
                published(
                    mail,
                    .inactive,
                    .background,
                    .command(.enterBackground),
                    at: at(4),
                    [.didEnterBackground],
                    asked: .alertAnswered
                )
            ]
        )
    }

    @Test func L10_aModernUnlockWithNoOtherInterruptionOpenMakesTheAppActive() throws {
        var scheduler = try makeScheduler(settings: self.modern)
        try scheduler.run(.launch, for: mail, now: at(0))
        scheduler.acknowledgeAll(scheduler.deviceEventReceived(.lock, now: at(1)).actions, now: at(1))
        let unlock = scheduler.deviceEventReceived(.unlock, now: at(2))
        // Expected at 2: suspended -> active, willEnterForeground then didBecomeActive (S7).
        #expect(
            unlock.actions.prefix(2) == [
                .resume(mail),
                published(
                    mail,
                    .suspended,
                    .active,
                    .command(.enterForeground),
                    at: at(2),
                    [.willEnterForeground, .didBecomeActive],
                    asked: .unlock
                ),
            ]
        )
    }
}
