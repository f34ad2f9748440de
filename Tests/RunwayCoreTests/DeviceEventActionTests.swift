@_spi(Driver) import RunwayCore
import Testing

/// Device-wide user events (S7, S8, S10 on the whole device): an opening event (lock, offerShutdown, alert) reaches
/// the apps in the foreground for which its command is legal; the closing event reaches only the apps its opening
/// event reached; apps in the background are left alone. Exact action lists, defaults (budget 30 s, lead 5 s,
/// grace 5 s).
@Suite struct DeviceEventActionTests {
    /// mail active, maps suspended, music not running (all embedded) on `settings`.
    private func phone(_ settings: SchedulerSettings = SchedulerSettings()) throws -> Scheduler {
        var scheduler = try makeScheduler(
            [AppDescriptor(id: mail), AppDescriptor(id: maps), AppDescriptor(id: music)],
            settings: settings
        )
        try scheduler.run(.launch, for: maps, now: at(0))
        try scheduler.run(.enterBackground, for: maps, now: at(0))
        try scheduler.run(.launch, for: mail, now: at(1))
        #expect(scheduler.state(of: maps) == .suspended)
        return scheduler
    }

    @Test func S7_deviceLockReachesOnlyTheForegroundAppsAndUnlockOnlyThoseItReached() throws {
        var scheduler = try self.phone()
        let lock = scheduler.deviceEventReceived(.lock, now: at(10))
        // Expected: mail alone (maps is suspended, music not running): publish active -> inactive, willResignActive.
        #expect(lock.apps == [mail])
        #expect(
            lock.actions == [
                published(
                    mail,
                    .active,
                    .inactive,
                    .command(.resignActive),
                    at: at(10),
                    [.willResignActive],
                    asked: .lock
                ),
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: lock.actions)),
            ]
        )
        scheduler.acknowledgeAll(lock.actions, now: at(10))
        // music is launched while the device is locked: the unlock did not lock it, so it leaves it alone.
        try scheduler.run(.launch, for: music, now: at(11))
        let unlock = scheduler.deviceEventReceived(.unlock, now: at(20))
        // Expected: mail alone: publish inactive -> active, didBecomeActive; maps stays suspended.
        #expect(unlock.apps == [mail])
        #expect(
            unlock.actions == [
                published(
                    mail,
                    .inactive,
                    .active,
                    .command(.activate),
                    at: at(20),
                    [.didBecomeActive],
                    asked: .unlock
                ),
                .deliver(mail, .didBecomeActive, token(.didBecomeActive, to: mail, in: unlock.actions)),
            ]
        )
        #expect(scheduler.state(of: maps) == .suspended)
        #expect(scheduler.state(of: music) == .active)
        // Expected: a second unlock closes nothing.
        let again = scheduler.deviceEventReceived(.unlock, now: at(21))
        #expect(again.apps == [])
        #expect(again.actions == [])
    }

    @Test func S7_deviceEventsSkipAForegroundAppForWhichTheirCommandIsNotLegal() throws {
        var scheduler = try self.phone()
        try scheduler.run(.launch, for: music, now: at(2))
        try scheduler.run(.resignActive, for: music, now: at(3))
        let alert = scheduler.deviceEventReceived(.alert, now: at(10))
        // Expected: mail is interrupted; music, already inactive (the switcher), cannot resign again: skipped, no
        // error.
        #expect(alert.apps == [mail])
        #expect(
            alert.actions == [
                published(
                    mail,
                    .active,
                    .inactive,
                    .command(.resignActive),
                    at: at(10),
                    [.willResignActive],
                    asked: .alert
                ),
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: alert.actions)),
            ]
        )
        scheduler.acknowledgeAll(alert.actions, now: at(10))
        let ignored = scheduler.deviceEventReceived(.alertIgnored, now: at(12))
        // Expected: only mail becomes active again; music stays in the switcher.
        #expect(ignored.apps == [mail])
        #expect(scheduler.state(of: music) == .inactive)
    }

    @Test func S7_modernDeviceLockResumesOnUnlockOnlyTheAppsItSuspended() throws {
        var scheduler = try self.phone(SchedulerSettings(lockBehavior: .modern))
        let lock = scheduler.deviceEventReceived(.lock, now: at(10))
        // Expected: mail enters the background; maps (suspended before the lock) is not reached.
        #expect(lock.apps == [mail])
        #expect(
            lock.actions == [
                published(
                    mail,
                    .active,
                    .background,
                    .command(.enterBackground),
                    at: at(10),
                    [.willResignActive, .didEnterBackground],
                    asked: .lock
                ),
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: lock.actions)),
                .armWakeup(at(35)),
            ]
        )
        scheduler.acknowledgeAll(lock.actions, now: at(10))
        #expect(scheduler.state(of: mail) == .suspended)
        let unlock = scheduler.deviceEventReceived(.unlock, now: at(20))
        // Expected: mail is resumed and comes to the foreground; maps stays suspended.
        #expect(unlock.apps == [mail])
        #expect(
            unlock.actions == [
                .resume(mail),
                published(
                    mail,
                    .suspended,
                    .active,
                    .command(.enterForeground),
                    at: at(20),
                    [.willEnterForeground, .didBecomeActive],
                    asked: .unlock
                ),
                .deliver(mail, .willEnterForeground, token(.willEnterForeground, to: mail, in: unlock.actions)),
            ]
        )
        #expect(scheduler.state(of: maps) == .suspended)
    }

    @Test func S9_deviceShutdownAcceptedSendsTheAppsTheOfferReachedTheInactiveTerminateRow() throws {
        var scheduler = try self.phone()
        try scheduler.run(.launch, for: music, now: at(2))
        let offer = scheduler.deviceEventReceived(.offerShutdown, now: at(10))
        #expect(offer.apps == [mail, music])
        scheduler.acknowledgeAll(offer.actions, now: at(10))
        let accept = scheduler.deviceEventReceived(.acceptShutdown, now: at(12))
        // Expected, in registration order: mail and music, inactive, get didEnterBackground (the inactive row of the
        // table), one wake-up at the grace 12 + 5; maps, suspended, is stopped with no message (P7, L5).
        #expect(accept.apps == [mail, maps, music])
        #expect(
            accept.actions == [
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: accept.actions)),
                .stop(maps),
                published(maps, .suspended, .notRunning, .terminated(.requested), at: at(12), asked: .acceptShutdown),
                .deliver(music, .didEnterBackground, token(.didEnterBackground, to: music, in: accept.actions)),
                .armWakeup(at(17)),
            ]
        )
        scheduler.acknowledgeAll(accept.actions, now: at(12))
        #expect(scheduler.state(of: mail) == .notRunning)
        #expect(scheduler.state(of: music) == .notRunning)
        // Expected: a cancel after the accept closes nothing: the offer was closed by the accept.
        #expect(scheduler.deviceEventReceived(.cancelShutdown, now: at(13)).apps == [])
    }

    @Test func S10_deviceAlertAnsweredSendsTheAppsItReachedToTheBackground() throws {
        var scheduler = try self.phone()
        let alert = scheduler.deviceEventReceived(.alert, now: at(10))
        scheduler.acknowledgeAll(alert.actions, now: at(10))
        let answered = scheduler.deviceEventReceived(.alertAnswered, now: at(11))
        // Expected: mail: publish inactive -> background, didEnterBackground, its grace (16) before the warning.
        #expect(answered.apps == [mail])
        #expect(
            answered.actions == [
                published(
                    mail,
                    .inactive,
                    .background,
                    .command(.enterBackground),
                    at: at(11),
                    [.didEnterBackground],
                    asked: .alertAnswered
                ),
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: answered.actions)),
                .armWakeup(at(16)),
            ]
        )
    }

    @Test func S7_aSecondDeviceLockKeepsTheAppsTheFirstReachedForTheUnlock() throws {
        var scheduler = try self.phone()
        let first = scheduler.deviceEventReceived(.lock, now: at(10))
        scheduler.acknowledgeAll(first.actions, now: at(10))
        // Expected: the second lock reaches nothing (mail is already inactive) and forgets nothing.
        let second = scheduler.deviceEventReceived(.lock, now: at(11))
        #expect(second.apps == [])
        #expect(second.actions == [])
        let unlock = scheduler.deviceEventReceived(.unlock, now: at(20))
        #expect(unlock.apps == [mail])
        #expect(scheduler.state(of: mail) == .active)
        scheduler.checkInvariants()
    }
}
