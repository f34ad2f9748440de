@_spi(Driver) import RunwayCore
import Testing

/// The rows of the table of Behaviour.md section 2 that keep an app running (launch, resignActive, activate,
/// enterBackground, suspension, enterForeground), as the exact action list of every call. Embedded apps and
/// protocol processes await each message (L2); plain processes get no deliveries. Defaults: budget 30 s,
/// warning lead 5 s, BackgroundEntryGrace 5 s.
@Suite struct TransitionActionTests {
    // MARK: notRunning -> inactive -> active (launch; its steps are L9's, in LaunchActionTests)

    @Test func S2_launchProcessThatCannotStartGoesBackToNotRunning() throws {
        var scheduler = try makeScheduler([protocolApp])
        let launch = try scheduler.commandReceived(.launch, for: mail, now: at(0))
        // Expected: publish inactive -> notRunning (L9), reason spawnFailed, no message, no exit status.
        #expect(
            scheduler.spawnFailed(mail, error: "ENOENT", now: at(0)) == [
                published(mail, .inactive, .notRunning, .terminated(.spawnFailed("ENOENT")), at: at(0))
            ]
        )
        // Expected: the abandoned didFinishLaunching's late return is ignored.
        #expect(scheduler.acknowledge(.didFinishLaunching, of: mail, in: launch, now: at(1)) == [])
    }

    // MARK: notRunning -> background (launch --background), then suspended

    @Test func S2_launchInBackgroundEmbeddedArmsTheBudgetThenTheEntryGraceThenSuspends() throws {
        var scheduler = try makeScheduler()
        let launch = try scheduler.commandReceived(.launchInBackground, for: mail, now: at(0))
        // Expected: publish notRunning -> background, didFinishLaunching, wake-up at the warning (0 + 30 - 5).
        #expect(
            launch == [
                published(
                    mail,
                    .notRunning,
                    .background,
                    .command(.launchInBackground),
                    at: at(0),
                    [.didFinishLaunching, .didEnterBackground]
                ),
                .deliver(mail, .didFinishLaunching, token(.didFinishLaunching, to: mail, in: launch)),
                .armWakeup(at(25)),
            ]
        )
        let finished = scheduler.acknowledge(.didFinishLaunching, of: mail, in: launch, now: at(1))
        // Expected: didEnterBackground, wake-up at its grace, armed when it is sent (1 + 5, L3).
        #expect(
            finished == [
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: finished)),
                .armWakeup(at(6)),
            ]
        )
        // Expected: no task when didEnterBackground returns: suspend, publish, no deadline left (B5).
        #expect(
            scheduler.acknowledge(.didEnterBackground, of: mail, in: finished, now: at(2)) == [
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(2)),
                .cancelWakeup,
            ]
        )
    }

    @Test func S2_launchInBackgroundProtocolProcessSpawnsFirst() throws {
        var scheduler = try makeScheduler([protocolApp])
        let launch = try scheduler.commandReceived(.launchInBackground, for: mail, now: at(0))
        // Expected: spawn, publish, didFinishLaunching, wake-up at the warning.
        #expect(
            launch == [
                .spawn(mail),
                published(
                    mail,
                    .notRunning,
                    .background,
                    .command(.launchInBackground),
                    at: at(0),
                    [.didFinishLaunching, .didEnterBackground]
                ),
                .setOOMScoreAdjust(mail, 500),
                .deliver(mail, .didFinishLaunching, token(.didFinishLaunching, to: mail, in: launch)),
                .armWakeup(at(25)),
            ]
        )
        let finished = scheduler.acknowledge(.didFinishLaunching, of: mail, in: launch, now: at(0))
        // Expected: didEnterBackground and its grace (0 + 5).
        #expect(
            finished == [
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: finished)),
                .armWakeup(at(5)),
            ]
        )
        // Expected: suspend (freeze or SIGSTOP), publish, cancel the wake-up.
        #expect(
            scheduler.acknowledge(.didEnterBackground, of: mail, in: finished, now: at(3)) == [
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(3)),
                .setOOMScoreAdjust(mail, 1000),
                .cancelWakeup,
            ]
        )
    }

    @Test func S2_launchInBackgroundPlainProcessIsSuspendedInTheSameCall() throws {
        var scheduler = try makeScheduler([plainApp])
        // Expected: spawn, publish notRunning -> background, suspend, publish background -> suspended; the
        // budget's timers are armed and disarmed within the call, so no wake-up action.
        #expect(
            try scheduler.commandReceived(.launchInBackground, for: mail, now: at(0)) == [
                .spawn(mail),
                published(
                    mail,
                    .notRunning,
                    .background,
                    .command(.launchInBackground),
                    at: at(0),
                    [.didFinishLaunching, .didEnterBackground]
                ),
                .setOOMScoreAdjust(mail, 500),
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(0)),
                .setOOMScoreAdjust(mail, 1000),
            ]
        )
    }

    // MARK: active <-> inactive

    @Test(arguments: awaitingApps)
    func S2_resignActiveThenActivateDeliverOneMessageEach(descriptor: AppDescriptor) throws {
        var scheduler = try makeScheduler([descriptor])
        try scheduler.run(.launch, for: mail, now: at(0))
        let resign = try scheduler.commandReceived(.resignActive, for: mail, now: at(10))
        // Expected: publish active -> inactive, willResignActive.
        #expect(
            resign == [published(mail, .active, .inactive, .command(.resignActive), at: at(10), [.willResignActive])]
                + oomScore(descriptor, .inactive)
                + [.deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: resign))]
        )
        #expect(scheduler.acknowledge(.willResignActive, of: mail, in: resign, now: at(11)) == [])
        let activate = try scheduler.commandReceived(.activate, for: mail, now: at(12))
        // Expected: publish inactive -> active, didBecomeActive.
        #expect(
            activate == [published(mail, .inactive, .active, .command(.activate), at: at(12), [.didBecomeActive])]
                + oomScore(descriptor, .active)
                + [.deliver(mail, .didBecomeActive, token(.didBecomeActive, to: mail, in: activate))]
        )
        #expect(scheduler.acknowledge(.didBecomeActive, of: mail, in: activate, now: at(13)) == [])
    }

    @Test func S2_resignActiveThenActivatePlainProcessOnlyPublishes() throws {
        var scheduler = try makeScheduler([plainApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        // Expected: publish only; no signal is sent for these rows.
        #expect(
            try scheduler.commandReceived(.resignActive, for: mail, now: at(10)) == [
                published(mail, .active, .inactive, .command(.resignActive), at: at(10), [.willResignActive]),
                .setOOMScoreAdjust(mail, 200),
            ]
        )
        #expect(
            try scheduler.commandReceived(.activate, for: mail, now: at(11)) == [
                published(mail, .inactive, .active, .command(.activate), at: at(11), [.didBecomeActive]),
                .setOOMScoreAdjust(mail, 0),
            ]
        )
    }
}
