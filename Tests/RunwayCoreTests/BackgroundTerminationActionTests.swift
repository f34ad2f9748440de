@_spi(Driver) import RunwayCore
import Testing

/// The `terminate` rows of the table of Behaviour.md section 2 from background and suspended, and the shutdown that
/// applies them to every app (P4), as the exact action list of every call: only `willTerminate` from the background
/// (its grace, L4; the app's tasks ended), no message for a suspended app (L5). TerminationGrace 5 s.
@Suite struct BackgroundTerminationActionTests {
    // MARK: background -> notRunning

    @Test func S2_terminateBackgroundEmbeddedSendsOnlyWillTerminateAndEndsItsTasks() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        let task = scheduler.beginTask("upload", in: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        let terminate = try scheduler.commandReceived(.terminate, for: mail, now: at(2))
        // Expected: willTerminate; the budget's warning (26) and deadline (31) are replaced by its grace (7).
        #expect(
            terminate == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: terminate)),
                .armWakeup(at(7)),
            ]
        )
        // Expected: stop, end the task, publish background -> notRunning, cancel the wake-up.
        #expect(
            scheduler.acknowledge(.willTerminate, of: mail, in: terminate, now: at(3)) == [
                .stop(mail),
                .endTasks(mail, [task]),
                published(mail, .background, .notRunning, .terminated(.requested), at: at(3), [.willTerminate]),
                .cancelWakeup,
            ]
        )
    }

    @Test func S2_terminateBackgroundProtocolProcessKillsAtWillTerminatesGraceAndEndsItsTasksOnExit() throws {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        let task = scheduler.beginTask("upload", in: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        let terminate = try scheduler.commandReceived(.terminate, for: mail, now: at(2))
        // Expected: willTerminate, grace 7.
        #expect(
            terminate == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: terminate)),
                .armWakeup(at(7)),
            ]
        )
        // Expected: SIGTERM; SIGKILL stays at willTerminate's grace, 2 + 5 (L4), the wake-up already armed.
        #expect(
            scheduler.acknowledge(.willTerminate, of: mail, in: terminate, now: at(3)) == [.sendTerminateSignal(mail)]
        )
        // Expected: on exit, end the task, publish, cancel the SIGKILL deadline.
        #expect(
            scheduler.processExited(mail, exit: .exited(0), now: at(4)) == [
                .endTasks(mail, [task]),
                published(
                    mail,
                    .background,
                    .notRunning,
                    .terminated(.requested),
                    at: at(4),
                    [.willTerminate],
                    exit: .exited(0)
                ),
                .cancelWakeup,
            ]
        )
    }

    // MARK: suspended -> notRunning (L5)

    @Test func L5_terminateSuspendedEmbeddedStopsWithoutAnyMessage() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        // Expected: stop, publish suspended -> notRunning with no message; no resume.
        #expect(
            try scheduler.commandReceived(.terminate, for: mail, now: at(5)) == [
                .stop(mail),
                published(mail, .suspended, .notRunning, .terminated(.requested), at: at(5)),
            ]
        )
    }

    @Test(arguments: [true, false])
    func L5_terminateSuspendedProcessKillsWithoutThawingOrMessage(speaksProtocol: Bool) throws {
        var scheduler = try makeScheduler([process(mail, speaksProtocol: speaksProtocol)])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        // Expected: SIGKILL at once (P2), no resume, no SIGTERM, no deadline; the state stays until the exit.
        #expect(try scheduler.commandReceived(.terminate, for: mail, now: at(5)) == [.kill(mail)])
        #expect(scheduler.state(of: mail) == .suspended)
        // Expected: the exit publishes suspended -> notRunning with no message.
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(5)) == [
                published(mail, .suspended, .notRunning, .terminated(.requested), at: at(5), exit: .signaled(9))
            ]
        )
    }

    // MARK: every app (P4)

    @Test func P4_shutdownTerminatesEveryAppByItsRowInRegistrationOrder() throws {
        var scheduler = try makeScheduler([AppDescriptor(id: mail), AppDescriptor(id: maps), AppDescriptor(id: music)])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.launch, for: maps, now: at(0))
        try scheduler.run(.enterBackground, for: maps, now: at(1))
        let shutdown = scheduler.shutdownRequested(now: at(10))
        // Expected: mail (active) gets willResignActive; maps (suspended) is stopped without a message; music
        // (not running) is left alone; one wake-up at mail's grace.
        #expect(
            shutdown == [
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: shutdown)),
                .stop(maps),
                published(maps, .suspended, .notRunning, .terminated(.shutdown), at: at(10)),
                .armWakeup(at(15)),
            ]
        )
        // Expected: no launch during shutdown.
        let refused = #expect(throws: SchedulerError.self) {
            try scheduler.commandReceived(.launch, for: music, now: at(11))
        }
        #expect(refused.map(unlocated) == unlocated(SchedulerError(.stopping, app: music, state: .notRunning)))
    }
}
