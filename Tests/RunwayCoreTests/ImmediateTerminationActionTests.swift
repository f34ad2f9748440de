@_spi(Driver) @_spi(Processes) import RunwayCore
@_spi(Driver) import RunwayTestKit
import Testing

/// E1's immediate style on the `terminate` rows (terminate, accepted shutdown S9, daemon stop P4): such an app never
/// enters the background, so it is never sent `didEnterBackground`; from active it shows `inactive` (a transition of
/// its own) while `willTerminate` runs. And L4's one grace: an app that ignores `willTerminate` is killed
/// `TerminationGrace` after it was sent. Exact action lists; grace 5 s.
@Suite struct ImmediateTerminationActionTests {
    private let immediate = AppDescriptor(id: mail, exitsOnSuspend: true, exitsOnSuspendStyle: .immediate)

    /// The ways to terminate an app from inactive, with the reason each records.
    enum Termination: String, CaseIterable {
        case terminate, acceptShutdown, shutdown

        var reason: TerminationReason { self == .shutdown ? .shutdown : .requested }

        func run(_ scheduler: inout Scheduler, now: Instant) throws -> [Action] {
            switch self {
            case .terminate: return try scheduler.commandReceived(.terminate, for: mail, now: now)
            case .acceptShutdown: return try scheduler.userActionReceived(.acceptShutdown, for: mail, now: now)
            case .shutdown: return scheduler.shutdownRequested(now: now)
            }
        }
    }

    @Test(arguments: [Termination.terminate, .shutdown])
    func E1_immediateStyleTerminatedFromActiveIsInactiveDuringWillTerminateAndNeverInTheBackground(
        _ termination: Termination
    ) throws {
        var scheduler = try makeScheduler([self.immediate])
        try scheduler.run(.launch, for: mail, now: at(0))
        let start = try termination.run(&scheduler, now: at(10))
        let reason = termination.reason
        // Expected: publish active -> inactive (the resignation, caused by the termination), willResignActive, grace.
        #expect(
            start == [
                published(mail, .active, .inactive, .terminated(reason), at: at(10), [.willResignActive]),
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: start)),
                .armWakeup(at(15)),
            ]
        )
        let resigned = scheduler.acknowledge(.willResignActive, of: mail, in: start, now: at(11))
        // Expected: willTerminate next (no didEnterBackground), its full grace 11 + 5.
        #expect(
            resigned == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: resigned)),
                .armWakeup(at(16)),
            ]
        )
        // Expected: status shows inactive, terminating, with willTerminate in flight.
        let status = scheduler.status(of: mail, now: at(12))
        #expect(status?.state == .inactive)
        #expect(status?.terminating == reason)
        #expect(status?.messageInFlight == .willTerminate)
        // Expected: stop, publish inactive -> notRunning with willTerminate alone.
        #expect(
            scheduler.acknowledge(.willTerminate, of: mail, in: resigned, now: at(12)) == [
                .stop(mail),
                published(mail, .inactive, .notRunning, .terminated(reason), at: at(12), [.willTerminate]),
                .cancelWakeup,
            ]
        )
    }

    @Test(arguments: Termination.allCases)
    func E1_immediateStyleTerminatedFromInactiveGetsOnlyWillTerminate(_ termination: Termination) throws {
        var scheduler = try makeScheduler([self.immediate])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.resignActive, for: mail, now: at(1))
        let start = try termination.run(&scheduler, now: at(10))
        // Expected: willTerminate at once, grace 10 + 5; nothing published while it runs.
        #expect(
            start == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: start)),
                .armWakeup(at(15)),
            ]
        )
        #expect(scheduler.status(of: mail, now: at(11))?.state == .inactive)
        #expect(scheduler.status(of: mail, now: at(11))?.terminating == termination.reason)
        #expect(
            scheduler.acknowledge(.willTerminate, of: mail, in: start, now: at(11)) == [
                .stop(mail),
                published(
                    mail,
                    .inactive,
                    .notRunning,
                    .terminated(termination.reason),
                    at: at(11),
                    [.willTerminate],
                    asked: termination == .acceptShutdown ? .acceptShutdown : nil
                ),
                .cancelWakeup,
            ]
        )
    }

    @Test func E1_immediateStyleProtocolProcessTerminatedFromActiveGetsSIGTERMAfterWillTerminate() throws {
        let descriptor = AppDescriptor(
            id: mail,
            kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"], speaksProtocol: true)),
            exitsOnSuspend: true,
            exitsOnSuspendStyle: .immediate
        )
        var scheduler = try makeScheduler([descriptor])
        try scheduler.run(.launch, for: mail, now: at(0))
        let terminate = try scheduler.commandReceived(.terminate, for: mail, now: at(10))
        // Expected: publish active -> inactive with the inactive OOM score, willResignActive, grace.
        #expect(
            terminate == [
                published(mail, .active, .inactive, .terminated(.requested), at: at(10), [.willResignActive]),
                .setOOMScoreAdjust(mail, 200),
                .deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: terminate)),
                .armWakeup(at(15)),
            ]
        )
        let resigned = scheduler.acknowledge(.willResignActive, of: mail, in: terminate, now: at(10))
        // Expected: willTerminate; its grace and the SIGKILL deadline are both 10 + 5, already armed.
        #expect(resigned == [.deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: resigned))])
        #expect(
            scheduler.acknowledge(.willTerminate, of: mail, in: resigned, now: at(11)) == [.sendTerminateSignal(mail)]
        )
        // Expected: the exit publishes inactive -> notRunning with willTerminate alone.
        #expect(
            scheduler.processExited(mail, exit: .exited(0), now: at(12)) == [
                published(
                    mail,
                    .inactive,
                    .notRunning,
                    .terminated(.requested),
                    at: at(12),
                    [.willTerminate],
                    exit: .exited(0)
                ),
                .cancelWakeup,
            ]
        )
    }

    // MARK: L4, one grace

    @Test func L4_anAppThatIgnoresWillTerminateSentLateInTheChainIsKilledOneGraceAfterItWasSent() throws {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        let terminate = try scheduler.commandReceived(.terminate, for: mail, now: at(10))
        let resigned = scheduler.acknowledge(.willResignActive, of: mail, in: terminate, now: at(13))
        let backgrounded = scheduler.acknowledge(.didEnterBackground, of: mail, in: resigned, now: at(14))
        // Expected: willTerminate at 14, its grace 14 + 5 (the chain's grace, 15, is replaced).
        #expect(
            backgrounded == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: backgrounded)),
                .armWakeup(at(19)),
            ]
        )
        // Expected: nothing at the chain's old grace (15) or before 19; at 19 SIGKILL at once, not SIGTERM and a
        // second grace (which would kill at 24).
        #expect(scheduler.clockAdvanced(to: at(19) - .nanoseconds(1)) == [])
        #expect(scheduler.clockAdvanced(to: at(19)) == [.kill(mail), .cancelWakeup])
        #expect(scheduler.nextWakeup == nil)
    }

    @Test func L4_anAppThatReturnsWillTerminateLateAndIgnoresSIGTERMIsKilledAtTheSameGrace() throws {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        scheduler.beginTask("upload", in: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        let terminate = try scheduler.commandReceived(.terminate, for: mail, now: at(2))
        // Expected: willTerminate at 2, grace 2 + 5.
        #expect(
            terminate == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: terminate)),
                .armWakeup(at(7)),
            ]
        )
        let late = scheduler.acknowledge(.willTerminate, of: mail, in: terminate, now: at(milliseconds: 6_900))
        // Expected: SIGTERM at the return; SIGKILL stays at 7, not 6.9 + 5.
        #expect(late == [.sendTerminateSignal(mail)])
        #expect(scheduler.nextWakeup == at(7))
        #expect(scheduler.clockAdvanced(to: at(7)) == [.kill(mail), .cancelWakeup])
    }

    /// E2/B6: a drain-style exits-on-suspend app whose budget ends with a message in flight is sent
    /// `willTerminate` at the deadline; the message in flight is abandoned (its late return is ignored).
    @Test func E2_atTheDeadlineAMessageInFlightIsAbandonedForWillTerminate() throws {
        var core = try makeScheduler([AppDescriptor(id: mail, exitsOnSuspend: true, exitsOnSuspendStyle: .drain)])
        try core.run(.launch, for: mail, now: at(0))
        let task = core.beginTask("t", in: mail, now: at(0))
        try core.run(.enterBackground, for: mail, now: at(0))
        let warning = core.memoryWarningRaised(now: at(1))
        _ = try core.backgroundTaskEnded(task, by: mail, now: at(2))
        let deadline = core.clockAdvanced(to: at(30))
        // Expected at 30: willTerminate delivered, its grace armed (30 + 5).
        #expect(
            deadline == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: deadline)), .armWakeup(at(35)),
            ]
        )
        // The abandoned memory warning's late return changes nothing.
        #expect(core.acknowledge(.didReceiveMemoryWarning, of: mail, in: warning, now: at(31)) == [])
        core.checkInvariants()
    }
}
