@_spi(Driver) import RunwayCore
import Testing

/// S15, the user's kill in the switcher: the `terminate` row of the app's state for an app in the background or
/// suspended (a suspended app ends with no message and, a process, SIGKILL at once; one in the background is sent
/// `willTerminate` and ends as `terminate` ends it), refused for the app in the foreground. Exact action lists on a
/// manual clock; budget 30 s, lead 5 s, TerminationGrace 5 s.
@Suite struct SwitcherKillActionTests {
    @Test func S15_killInTheSwitcherEndsASuspendedEmbeddedAppWithoutAMessage() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        // Expected: stop, publish suspended -> notRunning with no message, reporting switcherKill (L8); no resume.
        #expect(
            try scheduler.userActionReceived(.switcherKill, for: mail, now: at(5)) == [
                .stop(mail),
                published(mail, .suspended, .notRunning, .terminated(.requested), at: at(5), asked: .switcherKill),
            ]
        )
    }

    @Test func S15_killInTheSwitcherSIGKILLsASuspendedProcessAtOnceWithoutThawingIt() throws {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        #expect(scheduler.state(of: mail) == .suspended)
        // Expected: SIGKILL now; no resume, no SIGTERM, no grace timer (L5, P2).
        #expect(try scheduler.userActionReceived(.switcherKill, for: mail, now: at(5)) == [.kill(mail)])
        #expect(scheduler.armedTimers.isEmpty)
        // Expected: on the exit, publish suspended -> notRunning with no message, naming the kill (L8).
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(6)) == [
                published(
                    mail,
                    .suspended,
                    .notRunning,
                    .terminated(.requested),
                    at: at(6),
                    exit: .signaled(9),
                    asked: .switcherKill
                )
            ]
        )
    }

    @Test func S15_killInTheSwitcherSendsWillTerminateToAnAppInTheBackgroundThenEndsIt() throws {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        let task = scheduler.beginTask("upload", in: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        let kill = try scheduler.userActionReceived(.switcherKill, for: mail, now: at(2))
        // Expected: willTerminate; the budget's warning (26) and deadline (31) give way to its grace (2 + 5).
        #expect(
            kill == [
                .deliver(mail, .willTerminate, token(.willTerminate, to: mail, in: kill)),
                .armWakeup(at(7)),
            ]
        )
        // Expected: SIGTERM when it returns; SIGKILL stays at willTerminate's grace (L4).
        #expect(scheduler.acknowledge(.willTerminate, of: mail, in: kill, now: at(3)) == [.sendTerminateSignal(mail)])
        #expect(scheduler.clockAdvanced(to: at(7) - .nanoseconds(1)) == [])
        #expect(scheduler.clockAdvanced(to: at(7)) == [.kill(mail), .cancelWakeup])
        // Expected: on the exit, end the task, publish background -> notRunning with willTerminate.
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(8)) == [
                .endTasks(mail, [task]),
                published(
                    mail,
                    .background,
                    .notRunning,
                    .terminated(.requested),
                    at: at(8),
                    [.willTerminate],
                    exit: .signaled(9),
                    asked: .switcherKill
                ),
            ]
        )
    }

    @Test(arguments: [Command.launch, .resignActive])
    func S15_killInTheSwitcherIsRefusedForTheAppInTheForeground(_ setup: Command) throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        if setup != .launch { try scheduler.run(setup, for: mail, now: at(1)) }
        let state = try #require(scheduler.state(of: mail))
        // Expected: illegalCommand naming switcherKill, the app and its state; nothing changes.
        let refused = #expect(throws: SchedulerError.self) {
            try scheduler.userActionReceived(.switcherKill, for: mail, now: at(5))
        }
        #expect(refused?.code == .illegalCommand)
        #expect(refused?.userAction == .switcherKill)
        #expect(refused?.description == "illegalCommand: \(mail) cannot switcherKill in state \(state)")
        #expect(scheduler.state(of: mail) == state)
        #expect(!scheduler.isTerminating(mail))
        #expect(scheduler.armedTimers.isEmpty)
    }

    @Test func S15_killInTheSwitcherIsRefusedForAnAppThatIsNotRunningOrTerminating() throws {
        var scheduler = try makeScheduler([protocolApp])
        let notRunning = #expect(throws: SchedulerError.self) {
            try scheduler.userActionReceived(.switcherKill, for: mail, now: at(0))
        }
        #expect(notRunning?.description == "illegalCommand: \(mail) cannot switcherKill in state notRunning")
        try scheduler.run(.launch, for: mail, now: at(0))
        _ = scheduler.beginTask("upload", in: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        _ = try scheduler.userActionReceived(.switcherKill, for: mail, now: at(2))
        // Expected: a second kill while the first runs is refused, naming the action and the terminating flag.
        let refused = #expect(throws: SchedulerError.self) {
            try scheduler.userActionReceived(.switcherKill, for: mail, now: at(3))
        }
        #expect(refused?.description == "illegalCommand: \(mail) cannot switcherKill in state background (terminating)")
    }
}
