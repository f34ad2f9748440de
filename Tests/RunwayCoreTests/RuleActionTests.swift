@_spi(Driver) import RunwayCore
import Testing

/// Rules L1 (refusals), L2 (one message in flight) and L3 (background entry grace) of Behaviour.md section 2, as the
/// exact action list of every call. Defaults: budget 30 s, warning lead 5 s, BackgroundEntryGrace 5 s.
@Suite struct RuleActionTests {
    // MARK: L1

    /// An app brought to `state` at t=0 with, where the state allows, a message still in flight; the commands
    /// legal there; and a probe: the next event, whose actions must not depend on a refused command.
    private func reach(
        _ state: AppState
    ) throws -> (scheduler: Scheduler, legal: Set<Command>, probe: (inout Scheduler) throws -> [Action]) {
        var scheduler = try makeScheduler()
        switch state {
        case .notRunning:
            return (
                scheduler, [.launch, .launchInBackground],
                {
                    try $0.commandReceived(.launch, for: mail, now: at(1))
                }
            )
        case .active:
            // Active once didFinishLaunching returned (L9), with didBecomeActive in flight and a warning queued.
            let launch = try scheduler.commandReceived(.launch, for: mail, now: at(0))
            let active = scheduler.acknowledge(.didFinishLaunching, of: mail, in: launch, now: at(0))
            _ = scheduler.memoryWarningRaised(now: at(0))
            return (
                scheduler, [.activate, .resignActive, .enterBackground, .terminate],
                {
                    $0.acknowledge(.didBecomeActive, of: mail, in: active, now: at(1))
                }
            )
        case .inactive:
            try scheduler.run(.launch, for: mail, now: at(0))
            _ = try scheduler.commandReceived(.resignActive, for: mail, now: at(0))
            return (
                scheduler, [.activate, .enterBackground, .terminate],
                {
                    try $0.commandReceived(.activate, for: mail, now: at(1))
                }
            )
        case .background:
            try scheduler.run(.launch, for: mail, now: at(0))
            _ = scheduler.beginTask("upload", in: mail, now: at(0))
            let home = try scheduler.commandReceived(.enterBackground, for: mail, now: at(0))
            return (
                scheduler, [.enterForeground, .terminate],
                {
                    $0.acknowledge(.willResignActive, of: mail, in: home, now: at(1))
                }
            )
        case .suspended:
            try scheduler.run(.launch, for: mail, now: at(0))
            try scheduler.run(.enterBackground, for: mail, now: at(0))
            return (
                scheduler, [.enterForeground, .terminate],
                {
                    try $0.commandReceived(.enterForeground, for: mail, now: at(1))
                }
            )
        }
    }

    @Test(arguments: AppState.allCases)
    func L1_illegalCommandIsRefusedNamingAppStateAndCommandAndChangesNothing(state: AppState) throws {
        let (scheduler, legal, probe) = try self.reach(state)
        #expect(scheduler.state(of: mail) == state)
        var untouched = scheduler
        let expected = try probe(&untouched)
        for command in Command.allCases where !legal.contains(command) {
            var refused = scheduler
            let error = #expect(throws: SchedulerError.self, "\(command) in \(state)") {
                try refused.commandReceived(command, for: mail, now: at(1))
            }
            let named = SchedulerError(.illegalCommand, app: mail, state: state, command: command)
            #expect(error.map(unlocated) == unlocated(named))
            // Expected: the next event returns exactly what it returns when the command was never sent.
            #expect(refused.status(of: mail, now: at(1)) == scheduler.status(of: mail, now: at(1)))
            #expect(try probe(&refused) == expected, "\(command) in \(state)")
        }
        // The probes' own lists, exactly.
        switch state {
        case .notRunning:
            // Expected: publish notRunning -> inactive at 1 (L9), didFinishLaunching.
            #expect(
                expected == [
                    published(mail, .notRunning, .inactive, .command(.launch), at: at(1), [.didFinishLaunching]),
                    .deliver(mail, .didFinishLaunching, token(.didFinishLaunching, to: mail, in: expected)),
                ]
            )
        case .active:
            // Expected: the queued memory warning follows didBecomeActive.
            let warning = Message.didReceiveMemoryWarning
            #expect(expected == [.deliver(mail, warning, token(warning, to: mail, in: expected))])
        case .inactive:
            // Expected: publish inactive -> active; didBecomeActive waits for willResignActive (L2).
            #expect(
                expected == [
                    published(mail, .inactive, .active, .command(.activate), at: at(1), [.didBecomeActive])
                ]
            )
        case .background:
            // Expected: didEnterBackground follows willResignActive; its grace at 1 + 5.
            #expect(
                expected == [
                    .deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: expected)),
                    .armWakeup(at(6)),
                ]
            )
        case .suspended:
            // Expected: resume, publish suspended -> active, willEnterForeground.
            #expect(
                expected == [
                    .resume(mail),
                    published(
                        mail,
                        .suspended,
                        .active,
                        .command(.enterForeground),
                        at: at(1),
                        [.willEnterForeground, .didBecomeActive]
                    ),
                    .deliver(mail, .willEnterForeground, token(.willEnterForeground, to: mail, in: expected)),
                ]
            )
        }
    }

    @Test func L1_everyCommandToATerminatingAppIsRefusedAndChangesNothing() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        let terminate = try scheduler.commandReceived(.terminate, for: mail, now: at(0))
        for command in Command.allCases {
            var refused = scheduler
            let error = #expect(throws: SchedulerError.self, "\(command)") {
                try refused.commandReceived(command, for: mail, now: at(1))
            }
            let named = SchedulerError(.illegalCommand, app: mail, state: .active, terminating: true, command: command)
            #expect(error.map(unlocated) == unlocated(named))
            // Expected: didEnterBackground follows willResignActive, as without the refused command.
            let next = refused.acknowledge(.willResignActive, of: mail, in: terminate, now: at(1))
            #expect(next == [.deliver(mail, .didEnterBackground, token(.didEnterBackground, to: mail, in: next))])
        }
    }

    @Test func L1_activateOnAnActiveAppIsANoOpEvenWithAMessageInFlight() throws {
        var scheduler = try makeScheduler()
        let launch = try scheduler.commandReceived(.launch, for: mail, now: at(0))
        let active = scheduler.acknowledge(.didFinishLaunching, of: mail, in: launch, now: at(0))
        var untouched = scheduler
        // Expected: nothing.
        #expect(try scheduler.commandReceived(.activate, for: mail, now: at(1)) == [])
        // Expected: the next event is as if activate was never sent: didBecomeActive was the only one.
        let finished = scheduler.acknowledge(.didBecomeActive, of: mail, in: active, now: at(2))
        #expect(finished == untouched.acknowledge(.didBecomeActive, of: mail, in: active, now: at(2)))
        #expect(finished == [])
    }

    // MARK: L2

    @Test func L2_eachDeliveryWaitsForTheReturnOfThePreviousOneAndStaleTokensAreIgnored() throws {
        var scheduler = try makeScheduler()
        let launch = try scheduler.commandReceived(.launch, for: mail, now: at(0))
        let launched = token(.didFinishLaunching, to: mail, in: launch)
        // Expected: queued behind didFinishLaunching: nothing delivered.
        #expect(scheduler.memoryWarningRaised(now: at(0)) == [])
        // Expected: published at once, didBecomeActive then willResignActive queued (the activation replaces the
        // launch's own step, L9).
        #expect(
            try scheduler.commandReceived(.activate, for: mail, now: at(0)) == [
                published(mail, .inactive, .active, .command(.activate), at: at(0), [.didBecomeActive])
            ]
        )
        #expect(
            try scheduler.commandReceived(.resignActive, for: mail, now: at(0)) == [
                published(mail, .active, .inactive, .command(.resignActive), at: at(0), [.willResignActive])
            ]
        )
        // Expected: a token that is not the one in flight, or another app's return, changes nothing.
        let unknown = MessageToken(rawValue: launched.rawValue + 100)
        #expect(scheduler.messageReturned(unknown, from: mail, now: at(1)) == [])
        #expect(scheduler.messageReturned(launched, from: maps, now: at(1)) == [])
        let first = scheduler.messageReturned(launched, from: mail, now: at(1))
        // Expected: then, one per return, in queue order: didReceiveMemoryWarning, didBecomeActive,
        // willResignActive; a duplicate return of an earlier token changes nothing.
        let warning = Message.didReceiveMemoryWarning
        #expect(first == [.deliver(mail, warning, token(warning, to: mail, in: first))])
        #expect(scheduler.messageReturned(launched, from: mail, now: at(1)) == [])
        let second = scheduler.acknowledge(warning, of: mail, in: first, now: at(2))
        #expect(second == [.deliver(mail, .didBecomeActive, token(.didBecomeActive, to: mail, in: second))])
        let third = scheduler.acknowledge(.didBecomeActive, of: mail, in: second, now: at(3))
        #expect(third == [.deliver(mail, .willResignActive, token(.willResignActive, to: mail, in: third))])
        #expect(scheduler.acknowledge(.willResignActive, of: mail, in: third, now: at(4)) == [])
        // Every delivery has its own token.
        let tokens = [launch, first, second, third].flatMap { $0 }.compactMap { action -> MessageToken? in
            if case .deliver(_, _, let token) = action { return token }
            return nil
        }
        #expect(Set(tokens).count == 4)
    }

    @Test func L2_plainProcessesGetNoDeliveries() throws {
        var scheduler = try makeScheduler([plainApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        // Expected: nothing to deliver or wait for.
        #expect(scheduler.memoryWarningRaised(now: at(1)) == [])
        #expect(try scheduler.notificationPosted(name: "sync", payload: "1", to: mail, now: at(1)).actions == [])
    }

    // MARK: L3

    @Test func L3_didEnterBackgroundThatDoesNotReturnStopsAnEmbeddedAppWithoutTasksAtTheGrace() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.resignActive, for: mail, now: at(0))
        let other = try scheduler.commandReceived(.enterBackground, for: mail, now: at(10))
        // Expected: the grace is the earliest deadline: 10 + 5.
        #expect(other.last == .armWakeup(at(15)))
        #expect(scheduler.clockAdvanced(to: at(15) - .nanoseconds(1)) == [])
        // Expected: stop, publish background -> notRunning with no message, reason backgroundEntryTimeout;
        // warning and deadline are disarmed.
        #expect(
            scheduler.clockAdvanced(to: at(15)) == [
                .stop(mail),
                published(mail, .background, .notRunning, .terminated(.backgroundEntryTimeout), at: at(15)),
                .cancelWakeup,
            ]
        )
        #expect(scheduler.acknowledge(.didEnterBackground, of: mail, in: other, now: at(16)) == [])
    }

    @Test func L3_didEnterBackgroundThatDoesNotReturnGetsAProtocolProcessKilledAtOnce() throws {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        let home = try scheduler.commandReceived(.enterBackground, for: mail, now: at(10))
        let resigned = scheduler.acknowledge(.willResignActive, of: mail, in: home, now: at(11))
        // Expected: the grace starts when didEnterBackground is sent (11), not at the command (10).
        #expect(resigned.last == .armWakeup(at(16)))
        #expect(scheduler.clockAdvanced(to: at(15)) == [])
        // Expected: SIGKILL at 16, no SIGTERM and no grace timer (P2).
        #expect(scheduler.clockAdvanced(to: at(16)) == [.kill(mail), .cancelWakeup])
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(16)) == [
                published(
                    mail,
                    .background,
                    .notRunning,
                    .terminated(.backgroundEntryTimeout),
                    at: at(16),
                    exit: .signaled(9)
                )
            ]
        )
    }

    @Test func L3_anAppHoldingATaskAtTheGraceIsLeftToItsBudget() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.resignActive, for: mail, now: at(0))
        let task = scheduler.beginTask("upload", in: mail, now: at(0))
        let other = try scheduler.commandReceived(.enterBackground, for: mail, now: at(10))
        #expect(other.last == .armWakeup(at(15)))
        // Expected: at the grace nothing happens but the wake-up moving to the warning (10 + 30 - 5).
        #expect(scheduler.clockAdvanced(to: at(15)) == [.armWakeup(at(35))])
        // Expected (current behaviour): the task ends after the grace while didEnterBackground is still in
        // flight: the app is neither suspended nor terminated; it waits for the return or the deadline.
        #expect(try scheduler.backgroundTaskEnded(task, by: mail, now: at(16)) == [])
        // Expected: the late return suspends it (B5).
        #expect(
            scheduler.acknowledge(.didEnterBackground, of: mail, in: other, now: at(17)) == [
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(17)),
                .cancelWakeup,
            ]
        )
    }
}
