@_spi(Driver) import RunwayCore
import Testing

/// L9: a launch into the foreground passes through `inactive` until `didFinishLaunching` returns, and both steps
/// are published. Every call's complete action list, on explicit instants.
@Suite struct LaunchActionTests {
    @Test(arguments: awaitingApps)
    func L9_launchIsInactiveUntilDidFinishLaunchingReturnsThenActive(_ app: AppDescriptor) throws {
        var scheduler = try makeScheduler([app])
        let launch = try scheduler.commandReceived(.launch, for: mail, now: at(0))
        let spawn: [Action] = app.isProcess ? [.spawn(mail)] : []
        let oomInactive: [Action] = app.isProcess ? [.setOOMScoreAdjust(mail, 200)] : []
        let oomActive: [Action] = app.isProcess ? [.setOOMScoreAdjust(mail, 0)] : []
        // Expected at 0: (spawn,) notRunning -> inactive with didFinishLaunching alone, which is delivered.
        #expect(
            launch == spawn + [
                published(mail, .notRunning, .inactive, .command(.launch), at: at(0), [.didFinishLaunching])
            ] + oomInactive + [
                .deliver(mail, .didFinishLaunching, token(.didFinishLaunching, to: mail, in: launch))
            ]
        )
        #expect(scheduler.state(of: mail) == .inactive)
        // Expected at 1, when didFinishLaunching returns: inactive -> active, then didBecomeActive.
        let finished = scheduler.acknowledge(.didFinishLaunching, of: mail, in: launch, now: at(1))
        #expect(
            finished == [
                published(mail, .inactive, .active, .command(.launch), at: at(1), [.didBecomeActive])
            ] + oomActive + [
                .deliver(mail, .didBecomeActive, token(.didBecomeActive, to: mail, in: finished))
            ]
        )
        #expect(scheduler.state(of: mail) == .active)
        #expect(scheduler.acknowledge(.didBecomeActive, of: mail, in: finished, now: at(2)) == [])
        #expect(scheduler.state(of: mail) == .active)
    }

    @Test func L9_plainProcessPassesThroughInactiveAtTheLaunchInstant() throws {
        var scheduler = try makeScheduler([plainApp])
        // Expected: spawn, both steps at the same instant (a plain process is not waited for, L2), no deliveries.
        #expect(
            try scheduler.commandReceived(.launch, for: mail, now: at(0)) == [
                .spawn(mail),
                published(mail, .notRunning, .inactive, .command(.launch), at: at(0), [.didFinishLaunching]),
                .setOOMScoreAdjust(mail, 200),
                published(mail, .inactive, .active, .command(.launch), at: at(0), [.didBecomeActive]),
                .setOOMScoreAdjust(mail, 0),
            ]
        )
        #expect(scheduler.state(of: mail) == .active)
    }

    @Test func L9_activateDuringTheLaunchSendsDidBecomeActiveOnce() throws {
        var scheduler = try makeScheduler()
        let launch = try scheduler.commandReceived(.launch, for: mail, now: at(0))
        // Expected at 1: inactive -> active at once; didBecomeActive waits for didFinishLaunching (L2).
        #expect(
            try scheduler.commandReceived(.activate, for: mail, now: at(1)) == [
                published(mail, .inactive, .active, .command(.activate), at: at(1), [.didBecomeActive])
            ]
        )
        // Expected at 2: didFinishLaunching returns; no second step, one didBecomeActive.
        let finished = scheduler.acknowledge(.didFinishLaunching, of: mail, in: launch, now: at(2))
        #expect(finished == [.deliver(mail, .didBecomeActive, token(.didBecomeActive, to: mail, in: finished))])
        #expect(scheduler.acknowledge(.didBecomeActive, of: mail, in: finished, now: at(3)) == [])
        #expect(scheduler.state(of: mail) == .active)
    }

    @Test func L9_enterBackgroundDuringTheLaunchNeverSendsDidBecomeActive() throws {
        var scheduler = try makeScheduler()
        let launch = try scheduler.commandReceived(.launch, for: mail, now: at(0))
        // Expected at 1: inactive -> background with didEnterBackground only; the warning armed at 1 + 30 - 5.
        #expect(
            try scheduler.commandReceived(.enterBackground, for: mail, now: at(1)) == [
                published(mail, .inactive, .background, .command(.enterBackground), at: at(1), [.didEnterBackground]),
                .armWakeup(at(26)),
            ]
        )
        // Expected at 2: didFinishLaunching returns in the background: no step; didEnterBackground is sent and its
        // grace (L3) armed at 2 + 5, before the warning.
        let finished = scheduler.acknowledge(.didFinishLaunching, of: mail, in: launch, now: at(2))
        #expect(
            finished == [
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: finished)),
                .armWakeup(at(7)),
            ]
        )
        #expect(scheduler.state(of: mail) == .background)
    }

    @Test func L9_anAlertDuringTheLaunchKeepsTheAppInactiveUntilItCloses() throws {
        var scheduler = try makeScheduler()
        let launch = try scheduler.commandReceived(.launch, for: mail, now: at(0))
        // Expected at 1: the alert reaches the launching app; no message, nothing published.
        let alert = scheduler.deviceEventReceived(.alert, now: at(1))
        #expect(alert.apps == [mail])
        #expect(alert.actions == [])
        // Expected at 2: didFinishLaunching returns; the app stays inactive and is sent nothing.
        #expect(scheduler.acknowledge(.didFinishLaunching, of: mail, in: launch, now: at(2)) == [])
        #expect(scheduler.state(of: mail) == .inactive)
        // Expected at 3: the alert is ignored: inactive -> active, didBecomeActive.
        let ignored = scheduler.deviceEventReceived(.alertIgnored, now: at(3))
        #expect(
            ignored.actions == [
                published(
                    mail,
                    .inactive,
                    .active,
                    .command(.activate),
                    at: at(3),
                    [.didBecomeActive],
                    asked: .alertIgnored
                ),
                .deliver(mail, .didBecomeActive, token(.didBecomeActive, to: mail, in: ignored.actions)),
            ]
        )
    }

    @Test func launchInBackgroundSendsDidFinishLaunchingAndDidEnterBackground() throws {
        var driver = makeDriver()
        driver.beginTask("never", in: mail)  // refused: not running
        try driver.send(.launchInBackground, to: mail)
        #expect(driver.messages(to: mail) == [.didFinishLaunching, .didEnterBackground])
        #expect(driver.state(mail) == .suspended)
        #expect(driver.transitions(of: mail).first == "notRunning->background command(launchInBackground)")
    }
}
