@_spi(Driver) import RunwayCore
import Testing

/// P7: the device-wide `acceptShutdown` after an offer ends every running app, as a phone that powers off: the
/// apps the offer made inactive by the inactive `terminate` row (S9), an app in the background with `willTerminate`,
/// a suspended one silently (L5; a process by SIGKILL at once); nothing stays suspended. Exact action lists on a
/// manual clock; budget 30 s, lead 5 s, TerminationGrace 5 s.
@Suite struct ShutdownAcceptedActionTests {
    /// mail active (embedded), maps suspended (a protocol process), music in the background holding "upload"
    /// (embedded; warning at 26, deadline at 31).
    private func phone() throws -> (Scheduler, BackgroundTaskID) {
        var scheduler = try makeScheduler([AppDescriptor(id: mail), process(maps), AppDescriptor(id: music)])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.launch, for: maps, now: at(0))
        try scheduler.run(.enterBackground, for: maps, now: at(0))
        try scheduler.run(.launch, for: music, now: at(0))
        let task = scheduler.beginTask("upload", in: music, now: at(0))
        try scheduler.run(.enterBackground, for: music, now: at(1))
        #expect(scheduler.state(of: maps) == .suspended)
        #expect(scheduler.state(of: music) == .background)
        return (scheduler, task)
    }

    @Test func P7_anAcceptedShutdownEndsEveryAppSuspendedOnesSilentlyRunningOnesWithWillTerminate() throws {
        var (scheduler, task) = try self.phone()
        let offer = scheduler.deviceEventReceived(.offerShutdown, now: at(10))
        #expect(offer.apps == [mail])
        scheduler.acknowledgeAll(offer.actions, now: at(10))
        let accept = scheduler.deviceEventReceived(.acceptShutdown, now: at(12))
        // Expected, in registration order: mail (inactive) didEnterBackground; maps (suspended process) SIGKILL at
        // once, never resumed; music (background) willTerminate, its warning (26) and deadline (31) given up for the
        // grace 12 + 5.
        #expect(accept.apps == [mail, maps, music])
        #expect(
            accept.actions == [
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: accept.actions)),
                .kill(maps),
                .deliver(music, .willTerminate, token(.willTerminate, to: music, in: accept.actions)),
                .armWakeup(at(17)),
            ]
        )
        let mailDone = scheduler.acknowledge(.didEnterBackground, of: mail, in: accept.actions, now: at(13))
        // Expected: mail's willTerminate, its grace 13 + 5.
        #expect(mailDone == [.deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: mailDone))])
        #expect(
            scheduler.acknowledge(.willTerminate, of: mail, in: mailDone, now: at(13)) == [
                .stop(mail),
                published(
                    mail,
                    .inactive,
                    .notRunning,
                    .terminated(.requested),
                    at: at(13),
                    [.didEnterBackground, .willTerminate],
                    asked: .acceptShutdown
                ),
            ]
        )
        // Expected: music stops when willTerminate returns; its task ends; the last grace timer goes.
        #expect(
            scheduler.acknowledge(.willTerminate, of: music, in: accept.actions, now: at(14)) == [
                .stop(music),
                .endTasks(music, [task]),
                published(
                    music,
                    .background,
                    .notRunning,
                    .terminated(.requested),
                    at: at(14),
                    [.willTerminate],
                    asked: .acceptShutdown
                ),
                .cancelWakeup,
            ]
        )
        // Expected: maps is published when the driver reports its exit, with no message, naming the accept (L8).
        #expect(
            scheduler.processExited(maps, exit: .signaled(9), now: at(14)) == [
                published(
                    maps,
                    .suspended,
                    .notRunning,
                    .terminated(.requested),
                    at: at(14),
                    exit: .signaled(9),
                    asked: .acceptShutdown
                )
            ]
        )
        #expect(scheduler.allAppsStopped)
    }

    @Test func P7_acceptShutdownWithoutAnOpenOfferEndsNothing() throws {
        var (scheduler, _) = try self.phone()
        // Expected: no offer is open, so the closing event reaches no app and changes nothing.
        let accept = scheduler.deviceEventReceived(.acceptShutdown, now: at(12))
        #expect(accept.apps == [])
        #expect(accept.actions == [])
        #expect(scheduler.state(of: maps) == .suspended)
        #expect(scheduler.state(of: music) == .background)
    }

    @Test func P7_anAcceptedShutdownForgetsTheOpenLockSoItsUnlockReachesNoAppLaunchedAgain() throws {
        var (scheduler, _) = try self.phone()
        let lock = scheduler.deviceEventReceived(.lock, now: at(5))
        #expect(lock.apps == [mail])
        scheduler.acknowledgeAll(lock.actions, now: at(5))
        // The offer reaches no app (mail is inactive already); the accept still ends every app.
        #expect(scheduler.deviceEventReceived(.offerShutdown, now: at(10)).apps == [])
        let accept = scheduler.deviceEventReceived(.acceptShutdown, now: at(12))
        #expect(accept.apps == [mail, maps, music])
        scheduler.acknowledgeAll(accept.actions, now: at(12))
        _ = scheduler.processExited(maps, exit: .signaled(9), now: at(12))
        #expect(scheduler.allAppsStopped)
        // Expected: mail launched again is active; the unlock of the lock before the shutdown reaches nothing.
        try scheduler.run(.launch, for: mail, now: at(20))
        let unlock = scheduler.deviceEventReceived(.unlock, now: at(21))
        #expect(unlock.apps == [])
        #expect(unlock.actions == [])
    }
}
