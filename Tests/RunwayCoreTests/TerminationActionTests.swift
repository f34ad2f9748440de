@_spi(Driver) import RunwayCore
import Testing

/// The `terminate` rows of the table of Behaviour.md section 2 (from active, inactive, background, suspended) and the
/// shutdown that applies them to every app (P4), as the exact action list of every call: the message chain
/// (L2), `willTerminate`'s grace (L4), SIGTERM then SIGKILL for processes, SIGKILL at the end of the grace
/// `willTerminate` started (L4, P2), no message for a suspended app (L5). TerminationGrace 5 s.
@Suite struct TerminationActionTests {
    private let chainFromActive: [Message] = [.willResignActive, .didEnterBackground, .willTerminate]

    // MARK: active -> notRunning

    @Test func L4_terminateActiveEmbeddedSendsTheChainOneAtATimeThenStops() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        let terminate = try scheduler.commandReceived(.terminate, for: mail, now: at(10))
        // Expected: willResignActive; the messages' grace at 10 + 5; nothing is published yet.
        #expect(
            terminate == [
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: terminate)),
                .armWakeup(at(15)),
            ]
        )
        let resigned = scheduler.acknowledge(.willResignActive, of: mail, in: terminate, now: at(11))
        // Expected: didEnterBackground, without an entry grace of its own (L3 does not apply to a termination).
        #expect(
            resigned == [
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: resigned))
            ]
        )
        let backgrounded = scheduler.acknowledge(.didEnterBackground, of: mail, in: resigned, now: at(12))
        // Expected: willTerminate, with the full grace from its send: 12 + 5 (L4).
        #expect(
            backgrounded == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: backgrounded)),
                .armWakeup(at(17)),
            ]
        )
        // Expected: stop, publish active -> notRunning with the whole chain, cancel the wake-up.
        #expect(
            scheduler.acknowledge(.willTerminate, of: mail, in: backgrounded, now: at(13)) == [
                .stop(mail),
                published(mail, .active, .notRunning, .terminated(.requested), at: at(13), self.chainFromActive),
                .cancelWakeup,
            ]
        )
        #expect(scheduler.state(of: mail) == .notRunning)
    }

    @Test func L4_terminateActiveProtocolProcessEscalatesToSIGTERMThenSIGKILLAtWillTerminatesGrace() throws {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        let terminate = try scheduler.commandReceived(.terminate, for: mail, now: at(10))
        // Expected: willResignActive, wake-up at the messages' grace.
        #expect(
            terminate == [
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: terminate)),
                .armWakeup(at(15)),
            ]
        )
        let resigned = scheduler.acknowledge(.willResignActive, of: mail, in: terminate, now: at(10))
        // Expected: didEnterBackground.
        #expect(
            resigned == [
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: resigned))
            ]
        )
        let backgrounded = scheduler.acknowledge(.didEnterBackground, of: mail, in: resigned, now: at(11))
        // Expected: willTerminate, its grace 11 + 5.
        #expect(
            backgrounded == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: backgrounded)),
                .armWakeup(at(16)),
            ]
        )
        // Expected: SIGTERM once willTerminate returned; SIGKILL stays at the end of willTerminate's grace, 11 + 5
        // (L4: one grace in all), so the wake-up armed at 16 stays; still active and terminating.
        #expect(
            scheduler.acknowledge(.willTerminate, of: mail, in: backgrounded, now: at(12)) == [
                .sendTerminateSignal(mail)
            ]
        )
        #expect(scheduler.state(of: mail) == .active)
        #expect(scheduler.isTerminating(mail))
        // Expected: nothing before the SIGKILL deadline (B9); at it, SIGKILL and no wake-up left.
        #expect(scheduler.clockAdvanced(to: at(16) - .nanoseconds(1)) == [])
        #expect(scheduler.clockAdvanced(to: at(16)) == [.kill(mail), .cancelWakeup])
        // Expected: the exit publishes active -> notRunning with the chain and the exit status.
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(milliseconds: 16_001)) == [
                published(
                    mail,
                    .active,
                    .notRunning,
                    .terminated(.requested),
                    at: at(milliseconds: 16_001),
                    self.chainFromActive,
                    exit: .signaled(9)
                )
            ]
        )
    }

    @Test func L4_processThatExitsOnSIGTERMIsNotKilled() throws {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        let actions = try scheduler.run(.terminate, for: mail, now: at(10))
        // Expected, every message returned at t=10: willResignActive and the wake-up at 10 + 5, then
        // didEnterBackground, willTerminate and SIGTERM. willTerminate's grace and the SIGKILL deadline both fall
        // TerminationGrace after willTerminate was sent (15), so no further wake-up action appears.
        #expect(
            actions == [
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: actions)),
                .armWakeup(at(15)),
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: actions)),
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: actions)),
                .sendTerminateSignal(mail),
            ]
        )
        // Expected: the exit publishes and cancels the SIGKILL deadline.
        #expect(
            scheduler.processExited(mail, exit: .exited(0), now: at(12)) == [
                published(
                    mail,
                    .active,
                    .notRunning,
                    .terminated(.requested),
                    at: at(12),
                    self.chainFromActive,
                    exit: .exited(0)
                ),
                .cancelWakeup,
            ]
        )
    }

    @Test func L4_terminatePlainProcessSendsSIGTERMAtOnce() throws {
        var scheduler = try makeScheduler([plainApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        // Expected: no message is awaited: SIGTERM and the SIGKILL deadline 10 + 5 in the same call.
        #expect(
            try scheduler.commandReceived(.terminate, for: mail, now: at(10)) == [
                .sendTerminateSignal(mail),
                .armWakeup(at(15)),
            ]
        )
        // Expected: SIGKILL at the deadline.
        #expect(scheduler.clockAdvanced(to: at(15)) == [.kill(mail), .cancelWakeup])
        // Expected: the messages are recorded on the event although none was delivered.
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(15)) == [
                published(
                    mail,
                    .active,
                    .notRunning,
                    .terminated(.requested),
                    at: at(15),
                    self.chainFromActive,
                    exit: .signaled(9)
                )
            ]
        )
    }

    @Test func L4_aMessageBeforeWillTerminateThatDoesNotReturnEndsTheMessagesAtTheGrace() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        let terminate = try scheduler.commandReceived(.terminate, for: mail, now: at(10))
        // Expected: willResignActive, grace at 15.
        #expect(
            terminate == [
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: terminate)),
                .armWakeup(at(15)),
            ]
        )
        // Expected: willResignActive never returns: at 15 the app is stopped without the rest of the chain
        // being delivered; the event still lists the whole chain.
        #expect(
            scheduler.clockAdvanced(to: at(15)) == [
                .stop(mail),
                published(mail, .active, .notRunning, .terminated(.requested), at: at(15), self.chainFromActive),
                .cancelWakeup,
            ]
        )
        // Expected: the late return is ignored.
        #expect(scheduler.acknowledge(.willResignActive, of: mail, in: terminate, now: at(16)) == [])
    }

    // MARK: inactive -> notRunning (S9)

    @Test func S9_terminateInactiveEmbeddedWhoseWillTerminateNeverReturnsIsStoppedAtTheGrace() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.resignActive, for: mail, now: at(1))
        let accept = try scheduler.userActionReceived(.acceptShutdown, for: mail, now: at(10))
        // Expected: didEnterBackground, grace at 15.
        #expect(
            accept == [
                .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: accept)),
                .armWakeup(at(15)),
            ]
        )
        let backgrounded = scheduler.acknowledge(.didEnterBackground, of: mail, in: accept, now: at(11))
        // Expected: willTerminate, grace 11 + 5.
        #expect(
            backgrounded == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: backgrounded)),
                .armWakeup(at(16)),
            ]
        )
        #expect(scheduler.clockAdvanced(to: at(16) - .nanoseconds(1)) == [])
        // Expected: at 16, stop and publish inactive -> notRunning.
        #expect(
            scheduler.clockAdvanced(to: at(16)) == [
                .stop(mail),
                published(
                    mail,
                    .inactive,
                    .notRunning,
                    .terminated(.requested),
                    at: at(16),
                    [.didEnterBackground, .willTerminate],
                    asked: .acceptShutdown
                ),
                .cancelWakeup,
            ]
        )
        #expect(scheduler.acknowledge(.willTerminate, of: mail, in: backgrounded, now: at(17)) == [])
    }

    @Test func L4_willTerminateThatNeverReturnsFromAProtocolProcessIsKilledAtItsGraceWithoutSIGTERM() throws {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.resignActive, for: mail, now: at(1))
        let terminate = try scheduler.commandReceived(.terminate, for: mail, now: at(10))
        let backgrounded = scheduler.acknowledge(.didEnterBackground, of: mail, in: terminate, now: at(11))
        // Expected: willTerminate, grace 11 + 5.
        #expect(
            backgrounded == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: backgrounded)),
                .armWakeup(at(16)),
            ]
        )
        #expect(scheduler.clockAdvanced(to: at(16) - .nanoseconds(1)) == [])
        // Expected: at willTerminate's grace (16), SIGKILL at once: the grace is used up, and a SIGTERM would only
        // add a second one (L4). No wake-up left.
        #expect(scheduler.clockAdvanced(to: at(16)) == [.kill(mail), .cancelWakeup])
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(16)) == [
                published(
                    mail,
                    .inactive,
                    .notRunning,
                    .terminated(.requested),
                    at: at(16),
                    [.didEnterBackground, .willTerminate],
                    exit: .signaled(9)
                )
            ]
        )
    }
}
