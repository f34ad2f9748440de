@_spi(Driver) import RunwayCore
import Testing

/// The rows of the table of Behaviour.md section 2 that send an app Home (enterBackground from active or inactive,
/// then its suspension), as the exact action list of every call. Embedded apps and protocol processes await each
/// message (L2); plain processes get no deliveries and are suspended in the same call. Defaults: budget 30 s,
/// warning lead 5 s, BackgroundEntryGrace 5 s.
@Suite struct HomeActionTests {
    // MARK: active/inactive -> background -> suspended

    @Test func S2_homeFromActiveEmbeddedSendsWillResignActiveThenDidEnterBackgroundThenSuspends() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        let home = try scheduler.commandReceived(.enterBackground, for: mail, now: at(10))
        // Expected: publish active -> background, willResignActive, wake-up at the warning (10 + 30 - 5).
        #expect(
            home == [
                published(
                    mail,
                    .active,
                    .background,
                    .command(.enterBackground),
                    at: at(10),
                    [.willResignActive, .didEnterBackground]
                ),
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: home)),
                .armWakeup(at(35)),
            ]
        )
        let resigned = scheduler.acknowledge(.willResignActive, of: mail, in: home, now: at(11))
        // Expected: didEnterBackground, its grace armed at the send (11 + 5).
        #expect(
            resigned == [
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: resigned)),
                .armWakeup(at(16)),
            ]
        )
        // Expected: suspend, publish background -> suspended at the return, cancel the wake-up.
        #expect(
            scheduler.acknowledge(.didEnterBackground, of: mail, in: resigned, now: at(12)) == [
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(12)),
                .cancelWakeup,
            ]
        )
    }

    @Test func S2_homeFromActiveProtocolProcessSuspendsWhenDidEnterBackgroundIsAcknowledged() throws {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        let home = try scheduler.commandReceived(.enterBackground, for: mail, now: at(10))
        // Expected: publish, willResignActive, wake-up at the warning.
        #expect(
            home == [
                published(
                    mail,
                    .active,
                    .background,
                    .command(.enterBackground),
                    at: at(10),
                    [.willResignActive, .didEnterBackground]
                ),
                .setOOMScoreAdjust(mail, 500),
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: home)),
                .armWakeup(at(35)),
            ]
        )
        let resigned = scheduler.acknowledge(.willResignActive, of: mail, in: home, now: at(10))
        // Expected: didEnterBackground, grace 10 + 5.
        #expect(
            resigned == [
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: resigned)),
                .armWakeup(at(15)),
            ]
        )
        // Expected: suspend, publish, cancel the wake-up.
        #expect(
            scheduler.acknowledge(.didEnterBackground, of: mail, in: resigned, now: at(14)) == [
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(14)),
                .setOOMScoreAdjust(mail, 1000),
                .cancelWakeup,
            ]
        )
    }

    @Test func S2_homeFromActivePlainProcessIsSuspendedInTheSameCall() throws {
        var scheduler = try makeScheduler([plainApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        // Expected: publish active -> background, suspend, publish background -> suspended; no wake-up.
        #expect(
            try scheduler.commandReceived(.enterBackground, for: mail, now: at(10)) == [
                published(
                    mail,
                    .active,
                    .background,
                    .command(.enterBackground),
                    at: at(10),
                    [.willResignActive, .didEnterBackground]
                ),
                .setOOMScoreAdjust(mail, 500),
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(10)),
                .setOOMScoreAdjust(mail, 1000),
            ]
        )
    }

    @Test(arguments: awaitingApps)
    func S2_enterBackgroundFromInactiveSendsOnlyDidEnterBackground(descriptor: AppDescriptor) throws {
        var scheduler = try makeScheduler([descriptor])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.resignActive, for: mail, now: at(1))
        let other = try scheduler.commandReceived(.enterBackground, for: mail, now: at(10))
        // Expected: publish inactive -> background, didEnterBackground, wake-up at its grace (10 + 5), which is
        // earlier than the warning (35).
        #expect(
            other == [
                published(mail, .inactive, .background, .command(.enterBackground), at: at(10), [.didEnterBackground])
            ]
                + oomScore(descriptor, .background)
                + [
                    .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: other)),
                    .armWakeup(at(15)),
                ]
        )
        // Expected: suspend, publish, cancel the wake-up.
        #expect(
            scheduler.acknowledge(.didEnterBackground, of: mail, in: other, now: at(12))
                == [.suspend(mail), published(mail, .background, .suspended, .noOutstandingTasks, at: at(12))]
                + oomScore(descriptor, .suspended) + [.cancelWakeup]
        )
    }

    @Test func S2_enterBackgroundFromInactivePlainProcessIsSuspendedInTheSameCall() throws {
        var scheduler = try makeScheduler([plainApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.resignActive, for: mail, now: at(1))
        // Expected: publish inactive -> background, suspend, publish background -> suspended; no wake-up.
        #expect(
            try scheduler.commandReceived(.enterBackground, for: mail, now: at(10)) == [
                published(mail, .inactive, .background, .command(.enterBackground), at: at(10), [.didEnterBackground]),
                .setOOMScoreAdjust(mail, 500),
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(10)),
                .setOOMScoreAdjust(mail, 1000),
            ]
        )
    }
}
