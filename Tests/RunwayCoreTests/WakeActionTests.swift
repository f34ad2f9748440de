@_spi(Driver) import RunwayCore
import Testing

/// Background wake-ups (W1-W6): the exact action lists on explicit instants. Wake budget 10 s, warning lead 2 s,
/// background budget 30 s, so that a wake-up's deadline cannot be mistaken for a background period's.
@Suite struct WakeActionTests {
    let settings = SchedulerSettings(expirationWarningLead: .seconds(2), backgroundWakeBudget: .seconds(10))

    func wakeMessage(_ reason: WakeReason, _ payload: String = "", _ token: UInt64) -> Message {
        .backgroundWake(reason: reason, payload: payload, token: WakeToken(rawValue: token))
    }

    /// A protocol app launched and suspended at t=0 (Home with no task).
    func suspendedProtocolApp() throws -> Scheduler {
        var core = try makeScheduler([protocolApp], settings: self.settings)
        try core.run(.launch, for: mail, now: at(0))
        try core.run(.enterBackground, for: mail, now: at(0))
        #expect(core.state(of: mail) == .suspended)
        return core
    }

    @Test func W1_aSuspendedAppIsResumedIntoTheBackgroundAndSuspendedWhenItCompletes() throws {
        var core = try self.suspendedProtocolApp()
        let (wake, actions) = try core.backgroundWakeRequested(.fetch, payload: "{}", for: mail, now: at(5))
        let message = self.wakeMessage(.fetch, "{}", 1)
        #expect(wake == WakeToken(rawValue: 1))
        #expect(
            actions == [
                .resume(mail),
                published(mail, .suspended, .background, .backgroundWake(.fetch), at: at(5), [message]),
                .setOOMScoreAdjust(mail, 500),
                .deliver(mail, message, token(message, to: mail, in: actions)),
                .armWakeup(at(13)),
            ]
        )
        let status = core.status(of: mail, now: at(5))
        #expect(status?.deadline == at(15))
        #expect(status?.outstandingWakes == 1)
        // The message returned, the wake-up is not completed: the app stays in the background (W4).
        #expect(core.acknowledge(message, of: mail, in: actions, now: at(6)) == [])
        #expect(core.state(of: mail) == .background)
        // Completion before the budget: suspended at once (B5), its timers cancelled.
        #expect(
            try core.backgroundWakeCompleted(wake, by: mail, now: at(7)) == [
                .suspend(mail),
                published(mail, .background, .suspended, .noOutstandingTasks, at: at(7)),
                .setOOMScoreAdjust(mail, 1_000),
                .cancelWakeup,
            ]
        )
        core.checkInvariants()
    }

    @Test func W1_aNotRunningAppIsLaunchedIntoTheBackgroundWithoutDidEnterBackground() throws {
        var core = try makeScheduler([protocolApp], settings: self.settings)
        let (wake, actions) = try core.backgroundWakeRequested(
            .remoteNotification,
            payload: "{\"id\":7}",
            for: mail,
            now: at(1)
        )
        let message = self.wakeMessage(.remoteNotification, "{\"id\":7}", 1)
        let cause = TransitionCause.backgroundWake(.remoteNotification)
        #expect(
            actions == [
                .spawn(mail),
                published(mail, .notRunning, .background, cause, at: at(1), [.didFinishLaunching, message]),
                .setOOMScoreAdjust(mail, 500),
                .deliver(mail, .didFinishLaunching, token(.didFinishLaunching, to: mail, in: actions)),
                .armWakeup(at(9)),
            ]
        )
        let next = core.acknowledge(.didFinishLaunching, of: mail, in: actions, now: at(2))
        #expect(next == [.deliver(mail, message, token(message, to: mail, in: next))])
        #expect(core.acknowledge(message, of: mail, in: next, now: at(2)) == [])
        #expect(try core.backgroundWakeCompleted(wake, by: mail, now: at(3)).first == .suspend(mail))
        core.checkInvariants()
    }

    @Test func W4_anUncompletedWakeUpEndsAtItsDeadlineNeverEarlyAndALateCompletionIsIgnored() throws {
        var core = try self.suspendedProtocolApp()
        let (wake, actions) = try core.backgroundWakeRequested(.fetch, payload: "", for: mail, now: at(5))
        _ = core.acknowledge(self.wakeMessage(.fetch, "", 1), of: mail, in: actions, now: at(5))
        // B4 with no task: the warning calls nothing.
        #expect(core.clockAdvanced(to: at(13)) == [.armWakeup(at(15))])
        #expect(core.clockAdvanced(to: at(15) - .nanoseconds(1)) == [])
        #expect(core.state(of: mail) == .background)
        #expect(
            core.clockAdvanced(to: at(15)) == [
                .suspend(mail),
                published(mail, .background, .suspended, .budgetExpired, at: at(15)),
                .setOOMScoreAdjust(mail, 1_000),
                .cancelWakeup,
            ]
        )
        let before = core.status(now: at(16))
        #expect(try core.backgroundWakeCompleted(wake, by: mail, now: at(16)) == [])
        #expect(core.status(now: at(16)) == before)
        core.checkInvariants()
    }

    @Test func W2_aWakeUpInTheBackgroundMovesTheDeadlineToAFreshWakeBudgetNeverEarlier() throws {
        var core = try makeScheduler([AppDescriptor(id: mail)], settings: self.settings)
        try core.run(.launch, for: mail, now: at(0))
        let task = core.beginTask("upload", in: mail, now: at(0))
        try core.run(.enterBackground, for: mail, now: at(0))
        #expect(core.status(of: mail, now: at(0))?.deadline == at(30))
        // At 10 s a fresh 10 s budget ends before the period's deadline: nothing moves.
        let early = try core.backgroundWakeRequested(.fetch, payload: "", for: mail, now: at(10))
        let first = self.wakeMessage(.fetch, "", 1)
        #expect(early.actions == [.deliver(mail, first, token(first, to: mail, in: early.actions))])
        #expect(core.status(of: mail, now: at(10))?.deadline == at(30))
        _ = core.acknowledge(first, of: mail, in: early.actions, now: at(10))
        // At 25 s it ends later: the deadline moves to 35 s, the warning to 33 s.
        let late = try core.backgroundWakeRequested(.fetch, payload: "", for: mail, now: at(25))
        let second = self.wakeMessage(.fetch, "", 2)
        #expect(
            late.actions == [.deliver(mail, second, token(second, to: mail, in: late.actions)), .armWakeup(at(33))]
        )
        #expect(core.status(of: mail, now: at(25))?.deadline == at(35))
        #expect(core.status(of: mail, now: at(25))?.outstandingWakes == 2)
        _ = core.acknowledge(second, of: mail, in: late.actions, now: at(25))
        // Ending the task does not suspend the app while its wake-ups are outstanding.
        #expect(try core.backgroundTaskEnded(task, by: mail, now: at(26)) == [])
        #expect(try core.backgroundWakeCompleted(early.token, by: mail, now: at(27)) == [])
        #expect(try core.backgroundWakeCompleted(late.token, by: mail, now: at(28)).first == .suspend(mail))
        core.checkInvariants()
    }

    @Test func W3_aForegroundAppIsRefusedAFetchAndGetsARemoteNotificationWithoutABudget() throws {
        var core = try makeScheduler([AppDescriptor(id: mail)], settings: self.settings)
        try core.run(.launch, for: mail, now: at(0))
        #expect(
            throws: SchedulerError(.notWakeable, app: mail, state: .active, wakeReason: .fetch, file: "", line: 0)
        ) {
            do throws(SchedulerError) {
                _ = try core.backgroundWakeRequested(.fetch, payload: "", for: mail, now: at(1))
            } catch {
                throw unlocated(error)
            }
        }
        let (wake, actions) = try core.backgroundWakeRequested(.remoteNotification, payload: "", for: mail, now: at(1))
        let message = self.wakeMessage(.remoteNotification, "", wake.rawValue)
        #expect(actions == [.deliver(mail, message, token(message, to: mail, in: actions))])
        #expect(core.state(of: mail) == .active)
        #expect(core.backgroundTimeRemaining(for: mail, now: at(1)) == .max)
        _ = core.acknowledge(message, of: mail, in: actions, now: at(1))
        #expect(try core.backgroundWakeCompleted(wake, by: mail, now: at(2)) == [])
        core.checkInvariants()
    }

    @Test func W3_exitsOnSuspendApps() throws {
        let immediate = AppDescriptor(id: mail, exitsOnSuspend: true, exitsOnSuspendStyle: .immediate)
        let drain = AppDescriptor(id: maps, exitsOnSuspend: true, exitsOnSuspendStyle: .drain)
        var core = try makeScheduler([immediate, drain], settings: self.settings)
        // Immediate style never enters the background (E1): refused.
        #expect(throws: SchedulerError.self) {
            _ = try core.backgroundWakeRequested(.fetch, payload: "", for: mail, now: at(0))
        }
        #expect(core.state(of: mail) == .notRunning)
        // Drain style: launched into the background, and it exits where it would be suspended (E1).
        let (wake, actions) = try core.backgroundWakeRequested(.fetch, payload: "", for: maps, now: at(0))
        core.acknowledgeAll(actions, now: at(0))
        let completed = try core.backgroundWakeCompleted(wake, by: maps, now: at(1))
        #expect(
            completed == [
                .deliver(maps, .willTerminate, token(.willTerminate, to: maps, in: completed)), .armWakeup(at(6)),
            ]
        )
        #expect(core.isTerminating(maps))
        core.checkInvariants()
    }

    @Test func W5_limitsAreNamedAndNothingChanges() throws {
        let limited = SchedulerSettings(backgroundWakeLimitPerApp: 2, backgroundWakePayloadByteLimit: 8)
        var core = try makeScheduler([AppDescriptor(id: mail)], settings: limited)
        do throws(SchedulerError) {
            _ = try core.backgroundWakeRequested(.fetch, payload: "123456789", for: mail, now: at(0))
            Issue.record("a payload over the limit was accepted")
        } catch {
            #expect(error.code == .payloadTooLarge && error.limit == 8)
            #expect(
                error.description == "payloadTooLarge: the wake-up payload for \(mail) is longer than 8 bytes, the "
                    + "limit (BackgroundWakePayloadByteLimit)"
            )
        }
        #expect(core.state(of: mail) == .notRunning)
        _ = try core.backgroundWakeRequested(.fetch, payload: "12345678", for: mail, now: at(0))
        _ = try core.backgroundWakeRequested(.fetch, payload: "", for: mail, now: at(0))
        let before = core.status(now: at(1))
        do throws(SchedulerError) {
            _ = try core.backgroundWakeRequested(.fetch, payload: "", for: mail, now: at(1))
            Issue.record("a third outstanding wake-up was accepted")
        } catch {
            #expect(
                error.description == "tooManyWakes: \(mail) already has 2 background wake-ups outstanding, the "
                    + "limit (BackgroundWakeLimitPerApp)"
            )
        }
        #expect(core.status(now: at(1)) == before)
        #expect(throws: SchedulerError.self) {
            _ = try core.backgroundWakeCompleted(WakeToken(rawValue: 99), by: mail, now: at(1))
        }
        #expect(throws: SchedulerError.self) {
            _ = try core.backgroundWakeCompleted(WakeToken(rawValue: 0), by: mail, now: at(1))
        }
        core.checkInvariants()
    }

    @Test func W3_aTerminatingAppOrAStoppingSchedulerTakesNoWakeUp() throws {
        var core = try makeScheduler([protocolApp], settings: self.settings)
        try core.run(.launch, for: mail, now: at(0))
        _ = try core.commandReceived(.terminate, for: mail, now: at(0))
        #expect(core.isTerminating(mail))
        #expect(throws: SchedulerError.self) {
            _ = try core.backgroundWakeRequested(.remoteNotification, payload: "", for: mail, now: at(1))
        }
        var stopping = try makeScheduler([AppDescriptor(id: mail)], settings: self.settings)
        _ = stopping.shutdownRequested(now: at(0))
        do throws(SchedulerError) {
            _ = try stopping.backgroundWakeRequested(.fetch, payload: "", for: mail, now: at(1))
            Issue.record("a wake-up during shutdown was accepted")
        } catch {
            #expect(error.code == .stopping)
        }
    }
}
