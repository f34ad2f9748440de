@_spi(Driver) import RunwayCore
import Testing

/// KeepAlive (Scheduler+Restart.swift): restart instants on the manual clock, the backoff's growth, limit and
/// reset, the crash-loop state, and that none of Runway's own reasons arms a restart. Defaults: ThrottleInterval
/// 10 s, RestartBackoffLimit 300 s, RestartBackoffReset 600 s, CrashLoopThreshold 5, TerminationGrace 5 s.
@Suite struct RestartActionTests {
    @Test func keepAliveBackoffDoublesFromThrottleIntervalUpToTheLimitAndFlagsACrashLoop() throws {
        var scheduler = try makeScheduler([keptAlive()])
        _ = try scheduler.run(.launch, for: mail, now: at(0))
        // Every run fails at once: delays 10, 20, 40, 80, 160, then the 300 s limit, and the limit again.
        let delays: [Int64] = [10, 20, 40, 80, 160, 300, 300]
        var now: Int64 = 0
        for (number, delay) in delays.enumerated() {
            let attempt = number + 1
            let crashLooping = attempt >= 5
            let restart = pending(at(now + delay), attempt: attempt, failures: attempt, crashLooping: crashLooping)
            // Expected: the exit publishes the restart it armed, and the wake-up moves to it.
            #expect(
                scheduler.processExited(mail, exit: .exited(3), now: at(now)) == [
                    exited(3, at: at(now), restart: restart), .armWakeup(at(now + delay)),
                ],
                "attempt \(attempt)"
            )
            #expect(scheduler.restartStatus(of: mail)?.pending == restart)
            #expect(scheduler.restartStatus(of: mail)?.crashLooping == crashLooping)
            #expect(scheduler.armedTimers.map(\.kind) == ["restart"])
            // Expected: nothing a tick early (B9).
            #expect(scheduler.clockAdvanced(to: at(now + delay) - .nanoseconds(1)) == [])
            now += delay
            // Expected: at the instant, the app is launched again into the foreground through inactive (L9), cause
            // restart(n) on both steps.
            #expect(
                scheduler.clockAdvanced(to: at(now)) == [
                    .spawn(mail),
                    published(mail, .notRunning, .inactive, .restart(attempt), at: at(now), [.didFinishLaunching]),
                    .setOOMScoreAdjust(mail, 200),
                    published(mail, .inactive, .active, .restart(attempt), at: at(now), [.didBecomeActive]),
                    .setOOMScoreAdjust(mail, 0),
                    .cancelWakeup,
                ],
                "attempt \(attempt)"
            )
            #expect(scheduler.restartStatus(of: mail)?.restarts == attempt)
            #expect(scheduler.restartStatus(of: mail)?.pending == nil)
        }
        // The crash-loop state is visible while the app runs again, until a run lasts long enough.
        #expect(scheduler.status(of: mail, now: at(now))?.restart.crashLooping == true)
        #expect(scheduler.status(of: mail, now: at(now))?.restart.consecutiveFailures == 7)
    }

    @Test func keepAliveRunAsLongAsRestartBackoffResetStartsTheBackoffAgain() throws {
        var scheduler = try makeScheduler([keptAlive()])
        _ = try scheduler.run(.launch, for: mail, now: at(0))
        _ = scheduler.processExited(mail, exit: .exited(1), now: at(0))
        _ = scheduler.clockAdvanced(to: at(10))
        // 599 s is shorter than the reset: the second failure waits 20 s.
        #expect(
            scheduler.processExited(mail, exit: .exited(1), now: at(609))
                == [
                    exited(1, at: at(609), restart: pending(at(629), attempt: 2, failures: 2)),
                    .armWakeup(at(629)),
                ]
        )
        _ = scheduler.clockAdvanced(to: at(629))
        // Exactly 600 s up: the count starts again, the delay is ThrottleInterval.
        #expect(
            scheduler.processExited(mail, exit: .exited(1), now: at(1_229))
                == [
                    exited(1, at: at(1_229), restart: pending(at(1_239), attempt: 3, failures: 1)),
                    .armWakeup(at(1_239)),
                ]
        )
    }

    @Test func keepAliveCrashLoopThresholdAndLimitAreSettings() throws {
        var settings = SchedulerSettings()
        settings.restartBackoffLimit = .milliseconds(800)
        settings.crashLoopThreshold = 3
        var scheduler = try makeScheduler([keptAlive(throttle: .milliseconds(200))], settings: settings)
        _ = try scheduler.run(.launch, for: mail, now: at(0))
        var now = at(0)
        var seen: [(TimeSpan, Bool)] = []
        for _ in 0..<5 {
            _ = scheduler.processExited(mail, exit: .signaled(11), now: now)
            let pending = try #require(scheduler.restartStatus(of: mail)?.pending)
            seen.append((pending.at - now, pending.crashLooping))
            now = pending.at
            _ = scheduler.clockAdvanced(to: now)
        }
        // Expected: 0.2, 0.4, 0.8 (the limit), 0.8, 0.8 s; crash-looping from the third failure.
        #expect(seen.map(\.0) == [200, 400, 800, 800, 800].map { .milliseconds($0) })
        #expect(seen.map(\.1) == [false, false, true, true, true])
    }

    @Test func keepAliveOperatorTerminateCancelsThePendingRestart() throws {
        var scheduler = try makeScheduler([keptAlive()])
        _ = try scheduler.run(.launch, for: mail, now: at(0))
        _ = scheduler.processExited(mail, exit: .exited(3), now: at(1))
        #expect(scheduler.restartStatus(of: mail)?.pending?.at == at(11))
        // Expected: terminate is accepted on the notRunning app; only the wake-up goes.
        #expect(try scheduler.commandReceived(.terminate, for: mail, now: at(5)) == [.cancelWakeup])
        #expect(scheduler.state(of: mail) == .notRunning)
        #expect(scheduler.restartStatus(of: mail)?.pending == nil)
        #expect(scheduler.restartStatus(of: mail)?.consecutiveFailures == 0)
        #expect(scheduler.clockAdvanced(to: at(11)) == [])
        #expect(scheduler.armedTimers.isEmpty)
        // Expected: with nothing pending, terminate of a notRunning app is refused again (L1).
        #expect(throws: SchedulerError.self) { try scheduler.commandReceived(.terminate, for: mail, now: at(12)) }
    }

    @Test func keepAliveOperatorLaunchReplacesThePendingRestartAndResetsTheCount() throws {
        var scheduler = try makeScheduler([keptAlive()])
        _ = try scheduler.run(.launch, for: mail, now: at(0))
        _ = scheduler.processExited(mail, exit: .exited(3), now: at(1))
        let actions = try scheduler.commandReceived(.launch, for: mail, now: at(5))
        // Expected: an ordinary launch (cause command(launch)), and the restart's wake-up cancelled.
        #expect(
            actions == [
                .spawn(mail),
                published(mail, .notRunning, .inactive, .command(.launch), at: at(5), [.didFinishLaunching]),
                .setOOMScoreAdjust(mail, 200),
                published(mail, .inactive, .active, .command(.launch), at: at(5), [.didBecomeActive]),
                .setOOMScoreAdjust(mail, 0),
                .cancelWakeup,
            ]
        )
        var fresh = RestartStatus()
        fresh.runStarted = at(5)
        #expect(scheduler.restartStatus(of: mail) == fresh)
        // The next failure is the first again: ThrottleInterval.
        _ = scheduler.processExited(mail, exit: .exited(3), now: at(6))
        #expect(scheduler.restartStatus(of: mail)?.pending == pending(at(16), attempt: 1, failures: 1))
    }

    @Test func keepAliveBackgroundModeAppIsRestartedIntoTheBackground() throws {
        var scheduler = try makeScheduler([keptAlive(backgroundModes: ["audio"])])
        #expect(scheduler.descriptor(of: mail)?.launchCommand == .launchInBackground)
        _ = try scheduler.run(.launchInBackground, for: mail, now: at(0))
        _ = scheduler.processExited(mail, exit: .exited(3), now: at(1))
        let actions = scheduler.clockAdvanced(to: at(11))
        #expect(
            actions == [
                .spawn(mail),
                published(
                    mail,
                    .notRunning,
                    .background,
                    .restart(1),
                    at: at(11),
                    [.didFinishLaunching, .didEnterBackground]
                ),
                .setOOMScoreAdjust(mail, 500),
                .cancelWakeup,
            ]
        )
    }

    @Test func keepAliveSpawnFailureIsRestartedLikeAnExit() throws {
        var scheduler = try makeScheduler([keptAlive()])
        _ = try scheduler.run(.launch, for: mail, now: at(0))
        let actions = scheduler.spawnFailed(mail, error: "no such file", now: at(0))
        #expect(actions.last == .armWakeup(at(10)))
        #expect(scheduler.restartStatus(of: mail)?.pending == pending(at(10), attempt: 1, failures: 1))
    }

    @Test func keepAliveConditionsFollowLaunchd() {
        let reasons: [TerminationReason] = [.exited(0), .exited(3), .signaled(11), .spawnFailed("x")]
        func table(_ conditions: [RestartPolicy.Condition]) -> [Bool] {
            reasons.map { RestartPolicy(conditions: conditions).restarts(after: $0) }
        }
        #expect(table([.always]) == [true, true, true, true])
        #expect(table([.successfulExit(false)]) == [false, true, true, true])
        #expect(table([.successfulExit(true)]) == [true, false, false, false])
        #expect(table([.crashed(true)]) == [false, false, true, false])
        #expect(table([.crashed(false)]) == [true, true, false, false])
        #expect(table([.successfulExit(true), .crashed(true)]) == [true, false, true, false])
        // Runway's own reasons never restart, whatever the conditions.
        let own: [TerminationReason] = [
            .requested, .shutdown, .backgroundEntryTimeout, .budgetOverrun, .exitsOnSuspend, .memoryPressure,
            .protocolViolation,
        ]
        for conditions: [RestartPolicy.Condition] in [[.always], [.successfulExit(false)], [.crashed(true)]] {
            #expect(own.allSatisfy { !RestartPolicy(conditions: conditions).restarts(after: $0) })
        }
    }

    @Test func keepAliveSuccessfulExitNoLeavesAZeroExitDown() throws {
        var scheduler = try makeScheduler([keptAlive([.successfulExit(false)])])
        _ = try scheduler.run(.launch, for: mail, now: at(0))
        #expect(
            scheduler.processExited(mail, exit: .exited(0), now: at(1)) == [exited(0, at: at(1), restart: nil)]
        )
        #expect(scheduler.armedTimers.isEmpty)
    }

    /// One of Runway's own decisions, carried out on a running KeepAlive app.
    enum OwnReason: String, CaseIterable, Sendable {
        case requested, shutdown, budgetOverrun, exitsOnSuspend, memoryPressure, backgroundEntryTimeout
        case protocolViolation
    }

    @Test(arguments: OwnReason.allCases)
    func keepAliveNeverRestartsAfterRunwaysOwnDecision(_ own: OwnReason) throws {
        let awaits = own == .backgroundEntryTimeout
        var scheduler = try makeScheduler([
            keptAlive(exitsOnSuspend: own == .exitsOnSuspend, speaksProtocol: awaits)
        ])
        _ = try scheduler.run(.launch, for: mail, now: at(0))
        switch own {
        case .requested:
            _ = try scheduler.run(.terminate, for: mail, now: at(1))
        case .shutdown:
            _ = scheduler.acknowledgeAll(scheduler.shutdownRequested(now: at(1)), now: at(1))
        case .budgetOverrun:
            _ = scheduler.beginTask("sync", in: mail, now: at(1))
            _ = try scheduler.run(.enterBackground, for: mail, now: at(1))
            _ = scheduler.clockAdvanced(to: at(31))
        case .exitsOnSuspend:
            _ = try scheduler.run(.enterBackground, for: mail, now: at(1))
        case .memoryPressure:
            _ = try scheduler.run(.enterBackground, for: mail, now: at(1))
            #expect(scheduler.purgeRequested(now: at(2)).purged == mail)
        case .backgroundEntryTimeout:
            // didEnterBackground is never acknowledged: killed at the grace (L3).
            let background = try scheduler.commandReceived(.enterBackground, for: mail, now: at(1))
            _ = scheduler.acknowledge(.willResignActive, of: mail, in: background, now: at(1))
            _ = scheduler.clockAdvanced(to: at(6))
        case .protocolViolation:
            _ = scheduler.protocolViolated(by: mail, now: at(1))
        }
        // The process ends as asked (SIGTERM's or SIGKILL's signal); the reason is Runway's.
        _ = scheduler.clockAdvanced(to: at(40))
        let actions = scheduler.processExited(mail, exit: .signaled(9), now: at(40))
        let event = try #require(
            actions.compactMap { action -> TransitionEvent? in
                guard case .publish(let event) = action else { return nil }
                return event
            }.last
        )
        #expect(event.to == .notRunning)
        #expect(event.cause == .terminated(TerminationReason(own)))
        #expect(event.restart == nil)
        #expect(scheduler.restartStatus(of: mail)?.pending == nil)
        #expect(scheduler.armedTimers.isEmpty)
        #expect(scheduler.clockAdvanced(to: at(1_000)).allSatisfy { if case .spawn = $0 { false } else { true } })
        scheduler.checkInvariants()
    }
}

extension TerminationReason {
    fileprivate init(_ own: RestartActionTests.OwnReason) {
        switch own {
        case .requested: self = .requested
        case .shutdown: self = .shutdown
        case .budgetOverrun: self = .budgetOverrun
        case .exitsOnSuspend: self = .exitsOnSuspend
        case .memoryPressure: self = .memoryPressure
        case .backgroundEntryTimeout: self = .backgroundEntryTimeout
        case .protocolViolation: self = .protocolViolation
        }
    }
}
