@_spi(Driver) import RunwayCore
@_spi(Driver) import RunwayTestKit
import Testing

/// Rules L1–L8 of Behaviour.md section 2.
@Suite struct LifecycleTests {
    @Test func L1_illegalCommandIsRefusedNamingAppStateAndCommandAndChangesNothing() throws {
        var driver = makeDriver().launched(mail)
        let before = driver.scheduler.status(of: mail, now: driver.now)
        let actionsBefore = driver.actions.count
        do {
            try driver.send(.enterForeground, to: mail)
            Issue.record("enterForeground on an active app was accepted")
        } catch {
            #expect(error.code == .illegalCommand)
            #expect(error.app == mail)
            #expect(error.state == .active)
            #expect(error.command == .enterForeground)
            #expect(error.description == "illegalCommand: com.example.mail cannot enterForeground in state active")
        }
        #expect(driver.scheduler.status(of: mail, now: driver.now) == before)
        #expect(driver.actions.count == actionsBefore)
    }

    @Test func L1_activateOnActiveAppIsANoOp() throws {
        var driver = makeDriver().launched(mail)
        let actionsBefore = driver.actions.count
        try driver.send(.activate, to: mail)
        #expect(driver.actions.count == actionsBefore)
        #expect(driver.state(mail) == .active)
    }

    @Test func L1_everyIllegalPairIsRefused() throws {
        // The legal (command, state) pairs of the table; everything else must throw.
        let legal: Set<String> = [
            "launch notRunning", "launchInBackground notRunning", "activate active", "activate inactive",
            "resignActive active", "enterBackground active", "enterBackground inactive",
            "enterForeground background", "enterForeground suspended", "terminate active", "terminate inactive",
            "terminate background", "terminate suspended",
        ]
        let reach: [AppState: [Command]] = [
            .notRunning: [], .active: [.launch], .inactive: [.launch, .resignActive],
            .background: [.launch, .enterBackground], .suspended: [.launch, .enterBackground],
        ]
        for (state, path) in reach {
            for command in Command.allCases {
                var driver = makeDriver()
                for step in path {
                    try driver.send(step, to: mail)
                    if step == .launch && state == .background { driver.beginTask("hold", in: mail) }
                }
                #expect(driver.state(mail) == state)
                let accepted = (try? driver.send(command, to: mail)) != nil
                #expect(accepted == legal.contains("\(command) \(state)"), "\(command) in \(state)")
            }
        }
    }

    @Test func L1_commandsToATerminatingAppAreRefused() throws {
        var driver = makeDriver().launched(mail)
        driver.replies[mail] = ["willTerminate": .never]
        try driver.send(.terminate, to: mail)
        #expect(driver.scheduler.isTerminating(mail))
        #expect(throws: SchedulerError.self) { try driver.send(.enterBackground, to: mail) }
        #expect(throws: SchedulerError.self) { try driver.send(.terminate, to: mail) }
    }

    @Test func L2_aMessageIsNotSentBeforeThePreviousOneReturned() throws {
        var driver = makeDriver().launched(mail)
        driver.replies[mail] = ["willResignActive": .after(.milliseconds(1_500))]
        driver.beginTask("hold", in: mail)
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(10))
        // Expected: willResignActive at t=0, didEnterBackground only when it returned at t=1.5.
        let deliveries = driver.deliveries(to: mail).suffix(2)
        #expect(deliveries.map(\.message) == [.willResignActive, .didEnterBackground])
        #expect(deliveries.map(\.at) == [at(0), at(milliseconds: 1_500)])
    }

    @Test func L2_plainProcessesAreNeverWaitedFor() throws {
        var driver = makeDriver([process(mail, speaksProtocol: false)])
        try driver.send(.launch, to: mail)
        try driver.send(.enterBackground, to: mail)
        // No message is delivered to a plain process; the transitions still record them, and it suspends at once.
        #expect(driver.messages(to: mail) == [])
        #expect(driver.events.prefix(2).map(\.messages) == [[.didFinishLaunching], [.didBecomeActive]])
        #expect(driver.state(mail) == .suspended)
    }

    @Test func L3_didEnterBackgroundThatDoesNotReturnTerminatesAnAppWithoutTasks() throws {
        var driver = makeDriver().launched(mail)
        driver.replies[mail] = ["didEnterBackground": .never]
        driver.advance(to: at(10))
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(15) - .nanoseconds(1))
        #expect(driver.state(mail) == .background)
        driver.advance(to: at(15))
        // Expected: terminated at t=15 exactly (10 + BackgroundEntryGrace), without a message.
        #expect(driver.lastEvent(of: mail)?.at == at(15))
        #expect(driver.lastEvent(of: mail)?.cause == .terminated(.backgroundEntryTimeout))
        #expect(driver.messages(to: mail).last == .didEnterBackground)
    }

    @Test func L3_anAppHoldingATaskIsNotTerminatedByTheEntryGrace() throws {
        var driver = makeDriver().launched(mail)
        driver.replies[mail] = ["didEnterBackground": .never]
        driver.beginTask("hold", in: mail)
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(29))
        #expect(driver.state(mail) == .background)
        driver.advance(to: at(30))
        // The budget governs instead: killed at the deadline for overrun.
        #expect(driver.lastEvent(of: mail)?.cause == .terminated(.budgetOverrun))
    }

    @Test func L4_willTerminateThatDoesNotReturnIsKilledAtOnceWhenItsGraceRunsOut() throws {
        var driver = makeDriver([process(mail)])
        driver.replies[mail] = ["willTerminate": .never]
        driver.terminateBehavior[mail] = .ignores
        try driver.send(.launch, to: mail)
        try driver.send(.enterBackground, to: mail)
        try driver.send(.enterForeground, to: mail)
        driver.advance(to: at(2))
        try driver.send(.terminate, to: mail)
        driver.runUntilIdle()
        // Expected: willTerminate at t=2; at t=7 (its grace) SIGKILL at once, no SIGTERM (one grace in all); exit
        // recorded.
        #expect(driver.deliveries(to: mail).last.map { [$0.at] } == [at(2)])
        #expect(
            driver.effects(on: mail).suffix(2) == [
                "t=0.000s resume(com.example.mail)", "t=7.000s kill(com.example.mail)",
            ]
        )
        let last = driver.lastEvent(of: mail)
        #expect(last?.from == .active)
        #expect(last?.to == .notRunning)
        #expect(last?.exit == .signaled(9))
        #expect(last?.messages == [.willResignActive, .didEnterBackground, .willTerminate])
        #expect(driver.scheduler.status(of: mail, now: driver.now)?.lastExit == .signaled(9))
    }

    @Test func L4_processThatExitsOnSIGTERMIsNotKilled() throws {
        var driver = makeDriver([process(mail)])
        driver.terminateBehavior[mail] = .exits(after: .seconds(1))
        try driver.send(.launch, to: mail)
        try driver.send(.terminate, to: mail)
        driver.runUntilIdle()
        #expect(
            driver.effects(on: mail) == [
                "t=0.000s spawn(com.example.mail)", "t=0.000s sendTerminateSignal(com.example.mail)",
            ]
        )
        #expect(driver.lastEvent(of: mail)?.at == at(1))
        #expect(driver.lastEvent(of: mail)?.exit == .exited(0))
        #expect(driver.scheduler.nextWakeup == nil)
    }

    @Test func L5_suspendedAppIsTerminatedWithoutAnyMessage() throws {
        var driver = makeDriver([process(mail)])
        try driver.send(.launch, to: mail)
        try driver.send(.enterBackground, to: mail)
        let count = driver.messages(to: mail).count
        try driver.send(.terminate, to: mail)
        driver.runUntilIdle()
        #expect(driver.messages(to: mail).count == count)
        // Killed at once, without thawing (no resume).
        #expect(
            driver.effects(on: mail).suffix(2) == [
                "t=0.000s suspend(com.example.mail)", "t=0.000s kill(com.example.mail)",
            ]
        )
        #expect(driver.state(mail) == .notRunning)
    }

    @Test func L6_processThatExitsOnItsOwnEndsItsTasksAndDisturbsNothingElse() throws {
        var driver = makeDriver([process(mail), process(maps)])
        try driver.send(.launch, to: mail)
        try driver.send(.launch, to: maps)
        let task = driver.beginTask("upload", in: mail)
        let other = driver.beginTask("route", in: maps)
        driver.advance(to: at(3))
        driver.processExits(mail, .exited(3))
        #expect(driver.lastEvent(of: mail)?.cause == .terminated(.exited(3)))
        #expect(driver.lastEvent(of: mail)?.from == .active)
        #expect(driver.effects(on: mail).last == "t=3.000s endTasks(com.example.mail, [\(task)])")
        #expect(throws: SchedulerError.self) { try driver.endTask(task, in: mail) }
        // The other app keeps its state and its task.
        #expect(driver.state(maps) == .active)
        try driver.endTask(other, in: maps)
        driver.processExits(maps, .signaled(11))
        #expect(driver.lastEvent(of: maps)?.cause == .terminated(.signaled(11)))
    }

    @Test func L7_backgroundModeAppIsNeverSuspendedAndHasNoBudget() throws {
        var driver = makeDriver([AppDescriptor(id: music, backgroundModes: ["audio"])]).launched(music)
        try driver.send(.enterBackground, to: music)
        driver.advance(to: at(3_600))
        #expect(driver.state(music) == .background)
        #expect(driver.scheduler.backgroundTimeRemaining(for: music, now: driver.now) == .max)
        #expect(driver.scheduler.nextWakeup == nil)
        let task = driver.beginTask("stream", in: music)
        #expect(task != .invalid)
        try driver.endTask(task, in: music)
        #expect(driver.state(music) == .background)
    }

    @Test func L8_everyTransitionIsAnEventWithAppFromToCauseTimeAndMessages() throws {
        var driver = makeDriver().launched(mail)
        driver.advance(to: at(4))
        try driver.send(.resignActive, to: mail)
        driver.advance(to: at(5))
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(6))
        try driver.send(.enterForeground, to: mail)
        driver.advance(to: at(7))
        try driver.send(.terminate, to: mail)
        #expect(
            driver.events == [
                TransitionEvent(
                    app: mail,
                    from: .notRunning,
                    to: .inactive,
                    cause: .command(.launch),
                    at: at(0),
                    messages: [.didFinishLaunching]
                ),
                TransitionEvent(
                    app: mail,
                    from: .inactive,
                    to: .active,
                    cause: .command(.launch),
                    at: at(0),
                    messages: [.didBecomeActive]
                ),
                TransitionEvent(
                    app: mail,
                    from: .active,
                    to: .inactive,
                    cause: .command(.resignActive),
                    at: at(4),
                    messages: [.willResignActive]
                ),
                TransitionEvent(
                    app: mail,
                    from: .inactive,
                    to: .background,
                    cause: .command(.enterBackground),
                    at: at(5),
                    messages: [.didEnterBackground]
                ),
                TransitionEvent(
                    app: mail,
                    from: .background,
                    to: .suspended,
                    cause: .noOutstandingTasks,
                    at: at(5),
                    messages: []
                ),
                TransitionEvent(
                    app: mail,
                    from: .suspended,
                    to: .active,
                    cause: .command(.enterForeground),
                    at: at(6),
                    messages: [.willEnterForeground, .didBecomeActive]
                ),
                TransitionEvent(
                    app: mail,
                    from: .active,
                    to: .notRunning,
                    cause: .terminated(.requested),
                    at: at(7),
                    messages: [.willResignActive, .didEnterBackground, .willTerminate]
                ),
            ]
        )
    }

    /// L3: `didEnterBackground` sent during a visit to the foreground and still in flight when the app returns to
    /// the background gets its grace from the return; an app holding no task is terminated when it runs out.
    @Test func L3_aDidEnterBackgroundStillInFlightOnReturnToTheBackgroundIsBounded() throws {
        var core = try makeScheduler([AppDescriptor(id: mail)])
        try core.run(.launch, for: mail, now: at(0))
        let home = try core.commandReceived(.enterBackground, for: mail, now: at(0))
        _ = try core.commandReceived(.enterForeground, for: mail, now: at(1))
        _ = core.acknowledge(.willResignActive, of: mail, in: home, now: at(2))
        _ = try core.commandReceived(.enterBackground, for: mail, now: at(3))
        #expect(core.armedTimers.contains { $0.kind == "backgroundEntryGrace" && $0.deadline == at(8) })
        _ = core.clockAdvanced(to: at(8))
        #expect(core.state(of: mail) == .notRunning)
        #expect(core.status(of: mail, now: at(8))?.lastTermination == .backgroundEntryTimeout)
        core.checkInvariants()
    }
}
