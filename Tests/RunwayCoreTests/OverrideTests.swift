@_spi(Driver) import RunwayCore
@_spi(Driver) import RunwayTestKit
import Testing

/// Operator overrides (`runway extend`, `runway expire`) on the core with exact instants. Defaults: budget
/// 30 s, warning lead 5 s. Apps are plain processes, so no message is awaited and no acknowledgement is needed.
@Suite struct OverrideTests {
    /// A scheduler with `mail` launched at t=0 holding task "upload", in the background from t=0: warning at
    /// t=25, deadline at t=30.
    private func backgrounded() throws -> (Scheduler, BackgroundTaskID) {
        var scheduler = Scheduler()
        try scheduler.register(process(mail, speaksProtocol: false))
        _ = try scheduler.commandReceived(.launch, for: mail, now: at(0))
        let task = scheduler.backgroundTaskRequested(name: "upload", by: mail, now: at(0))
        _ = try scheduler.commandReceived(.enterBackground, for: mail, now: at(0))
        return (scheduler, task.id)
    }

    @Test func extendBeforeTheWarningMovesWarningAndDeadline() throws {
        var (scheduler, _) = try self.backgrounded()
        var fired: [FiredTimer] = []
        let actions = try scheduler.budgetExtended(by: .seconds(10), for: mail, now: at(10))
        // The earliest deadline is now the warning at 40 - 5 = 35.
        #expect(actions == [.armWakeup(at(35))])
        #expect(scheduler.status(of: mail, now: at(10))?.deadline == at(40))
        #expect(scheduler.status(of: mail, now: at(10))?.budgetRemaining == .seconds(30))
        // Nothing fires at the old instants.
        _ = scheduler.clockAdvanced(to: at(30), recordingInto: &fired)
        #expect(fired.isEmpty)
        #expect(scheduler.state(of: mail) == .background)
        // Warning exactly at 35, not at 35 - 1 ns; the deadline exactly at 40.
        _ = scheduler.clockAdvanced(to: at(35) - .nanoseconds(1), recordingInto: &fired)
        #expect(fired.isEmpty)
        _ = scheduler.clockAdvanced(to: at(35), recordingInto: &fired)
        #expect(fired.map(\.kind) == ["expirationWarning"])
        #expect(fired.map(\.firedAt) == [at(35)])
        _ = scheduler.clockAdvanced(to: at(40), recordingInto: &fired)
        #expect(fired.map(\.kind) == ["expirationWarning", "budgetDeadline"])
        #expect(fired.last?.deadline == at(40))
        scheduler.checkInvariants()
    }

    @Test func extendAfterTheWarningDoesNotWarnAgain() throws {
        var (scheduler, _) = try self.backgrounded()
        var fired: [FiredTimer] = []
        _ = scheduler.clockAdvanced(to: at(26), recordingInto: &fired)
        #expect(fired.map(\.kind) == ["expirationWarning"])
        let actions = try scheduler.budgetExtended(by: .milliseconds(2_500), for: mail, now: at(27))
        #expect(actions == [.armWakeup(at(milliseconds: 32_500))])
        _ = scheduler.clockAdvanced(to: at(milliseconds: 32_500), recordingInto: &fired)
        // B4: handlers are called once per period; the deadline fires at the extended instant.
        #expect(fired.map(\.kind) == ["expirationWarning", "budgetDeadline"])
        #expect(fired.last?.firedAt == at(milliseconds: 32_500))
        // B6 with a task outstanding and OverrunPolicy.terminate: SIGTERM.
        #expect(scheduler.isTerminating(mail))
        scheduler.checkInvariants()
    }

    @Test func expireCallsHandlersThenAppliesTheDeadlineAtTheSameInstant() throws {
        var (scheduler, task) = try self.backgrounded()
        var fired: [FiredTimer] = []
        // Expected order at t=7: the operator's expire arms a wake-up at 7; the warning (task's handler) fires
        // first, then the deadline; the task is still outstanding, so the app is terminated (budgetOverrun).
        let actions = try scheduler.budgetExpiredByOperator(for: mail, now: at(7))
        #expect(actions == [.armWakeup(at(7))])
        #expect(scheduler.status(of: mail, now: at(7))?.deadline == at(7))
        #expect(scheduler.status(of: mail, now: at(7))?.budgetRemaining == .zero)
        let actions7 = scheduler.clockAdvanced(to: at(7), recordingInto: &fired)
        #expect(fired.map(\.kind) == ["expirationWarning", "budgetDeadline"])
        #expect(fired.map(\.firedAt) == [at(7), at(7)])
        #expect(actions7.contains(.kill(mail)))
        #expect(!actions7.contains(.sendTerminateSignal(mail)))
        #expect(scheduler.status(of: mail, now: at(7))?.terminating == .budgetOverrun)
        #expect(task != .invalid)
        scheduler.checkInvariants()
    }

    @Test func expireWithoutTasksSuspends() throws {
        var (scheduler, task) = try self.backgrounded()
        _ = try scheduler.budgetExpiredByOperator(for: mail, now: at(3))
        _ = try scheduler.backgroundTaskEnded(task, by: mail, now: at(3))
        // B5: the last task ended: suspended at once, before the re-armed timers run.
        #expect(scheduler.state(of: mail) == .suspended)
        #expect(scheduler.nextWakeup == nil)
        scheduler.checkInvariants()
    }

    @Test func overridesNeedARunningBudget() throws {
        var scheduler = Scheduler()
        let player = AppDescriptor(id: music, backgroundModes: ["audio"])
        try scheduler.register(process(mail, speaksProtocol: false))
        try scheduler.register(player)
        // Not running.
        let notRunning = #expect(throws: SchedulerError.self) {
            try scheduler.budgetExtended(by: .seconds(1), for: mail, now: at(0))
        }
        #expect(notRunning?.code == .noBudget)
        #expect(notRunning?.state == .notRunning)
        // Active: no budget is running (B2).
        _ = try scheduler.commandReceived(.launch, for: mail, now: at(0))
        let error = #expect(throws: SchedulerError.self) {
            try scheduler.budgetExpiredByOperator(for: mail, now: at(1))
        }
        #expect(error?.code == .noBudget)
        #expect(error?.description == "noBudget: com.example.mail has no running background budget in state active")
        // Background modes (L7): unlimited, nothing to extend.
        _ = try scheduler.commandReceived(.launchInBackground, for: music, now: at(1))
        #expect(throws: SchedulerError.self) { try scheduler.budgetExtended(by: .seconds(1), for: music, now: at(1)) }
        // Unknown app.
        let unknown = #expect(throws: SchedulerError.self) {
            try scheduler.budgetExtended(by: .seconds(1), for: maps, now: at(1))
        }
        #expect(unknown?.code == .unknownApp)
        scheduler.checkInvariants()
    }
}
