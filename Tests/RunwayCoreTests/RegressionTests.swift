import RunwayTestKit
import Testing

@testable import RunwayCore

/// Sequences a review of the lifecycle rewrite found mishandled, each pinned to the rule it protects.
@Suite struct RegressionTests {
    /// Records deliveries so the test can return them; every other action is ignored.
    final class Host: AppHost {
        var tokens: [(app: AppID, message: Message, token: MessageToken)] = []
        var killed: [AppID] = []
        func deliver(_ message: Message, token: MessageToken, to app: AppID) {
            self.tokens.append((app, message, token))
        }
        func spawn(_ app: AppID) {}
        func suspend(_ app: AppID) {}
        func resume(_ app: AppID) {}
        func stop(_ app: AppID) {}
        func sendTerminateSignal(_ app: AppID) {}
        func kill(_ app: AppID) { self.killed.append(app) }
    }

    final class Clock {
        var now = Instant.origin
    }

    /// B9/L4 with `TerminationGrace = 0`: an exits-on-suspend app whose budget ends while `didEnterBackground` is
    /// still out is sent `willTerminate` with its grace (and kill deadline) armed at the very instant whose wake-up
    /// just fired, so the core's earliest deadline does not change; the loop's one-shot timer is disarmed by then,
    /// so the runner must announce the wake-up again or the app, which never returns, would never be killed.
    @Test func L4_aKillDeadlineArmedAtTheInstantThatFiredGetsAWakeUp() throws {
        let clock = Clock()
        let host = Host()
        let settings = SchedulerSettings(
            backgroundTimeBudget: .seconds(10),
            backgroundEntryGrace: .seconds(60),
            terminationGrace: .zero
        )
        let runner = ActionRunner(core: Scheduler(settings: settings), now: { clock.now })
        runner.processHost = host
        var loopTimer: Instant?
        runner.onWakeupChanged = { loopTimer = $0 }
        var descriptor = process(mail)
        descriptor.exitsOnSuspend = true
        try runner.register(descriptor)
        // The app returns every message but didEnterBackground and willTerminate.
        func returnAll() {
            while let index = host.tokens.firstIndex(where: {
                ![.didEnterBackground, .willTerminate].contains($0.message)
            }) {
                let (app, _, token) = host.tokens.remove(at: index)
                runner.run { $0.messageReturned(token, from: app, now: $1) }
            }
        }
        try runner.attempt { core, now throws(SchedulerError) in try core.commandReceived(.launch, for: mail, now: now)
        }
        returnAll()
        try runner.attempt { core, now throws(SchedulerError) in
            try core.commandReceived(.enterBackground, for: mail, now: now)
        }
        returnAll()
        // Fire as LoopDriver does: the timer is one-shot, so it is disarmed before the deadlines run.
        var firings = 0
        while let armed = loopTimer, armed <= at(10), firings < 10 {
            clock.now = armed
            loopTimer = nil
            runner.wakeupFired(at: armed)
            returnAll()
            firings += 1
        }
        // Expected: warning at 5 (no task: nothing to call), deadline at 10 (willTerminate sent, its grace at 10),
        // the grace at 10 (SIGKILL at once).
        #expect(host.killed == [mail])
        #expect(firings == 3)
        #expect(loopTimer == nil)
    }

    /// E1/B6: an exits-on-suspend app whose budget ends with a message in flight is sent `willTerminate` at the
    /// deadline; the message in flight is abandoned (its late return is ignored).
    @Test func E1_atTheDeadlineAMessageInFlightIsAbandonedForWillTerminate() throws {
        var core = try makeScheduler([AppDescriptor(id: mail, exitsOnSuspend: true)])
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
