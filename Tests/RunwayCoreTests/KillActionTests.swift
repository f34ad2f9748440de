@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

/// The rows of the table of Behaviour.md section 2 that end an app without a message (memory purge, budget overrun
/// kill; P3, S14, B6, S12) and L6 (a process that exits on its own), as the exact action list of every call.
/// Defaults: budget 30 s, warning lead 5 s, TerminationGrace 5 s.
@Suite struct KillActionTests {
    // MARK: Memory purge (P3, S14)

    @Test func S14_purgeSuspendedEmbeddedStopsItWithoutAMessage() throws {
        var scheduler = try makeScheduler()
        #expect(scheduler.purgeRequested(now: at(0)) == (nil, []))
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        let purge = scheduler.purgeRequested(now: at(5))
        // Expected: stop, publish suspended -> notRunning, reason memoryPressure, no message.
        #expect(purge.purged == mail)
        #expect(
            purge.actions == [
                .stop(mail),
                published(mail, .suspended, .notRunning, .terminated(.memoryPressure), at: at(5)),
            ]
        )
    }

    @Test(arguments: [true, false])
    func S14_purgeSuspendedProcessKillsItAndPublishesOnExit(speaksProtocol: Bool) throws {
        var scheduler = try makeScheduler([process(mail, speaksProtocol: speaksProtocol)])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        let purge = scheduler.purgeRequested(now: at(5))
        // Expected: SIGKILL without thawing (P2); nothing else until the exit.
        #expect(purge.purged == mail)
        #expect(purge.actions == [.kill(mail)])
        // Expected: a second purge finds nothing (the app is already being killed).
        #expect(scheduler.purgeRequested(now: at(5)) == (nil, []))
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(6)) == [
                published(mail, .suspended, .notRunning, .terminated(.memoryPressure), at: at(6), exit: .signaled(9))
            ]
        )
    }

    @Test func P3_purgeBackgroundModeEmbeddedInTheBackgroundStopsIt() throws {
        var scheduler = try makeScheduler([AppDescriptor(id: music, backgroundModes: ["audio"])])
        try scheduler.run(.launch, for: music, now: at(0))
        try scheduler.run(.enterBackground, for: music, now: at(1))
        #expect(scheduler.state(of: music) == .background)
        let purge = scheduler.purgeRequested(now: at(5))
        // Expected: stop, publish background -> notRunning; no budget timer was armed (L7), so no wake-up.
        #expect(purge.purged == music)
        #expect(
            purge.actions == [
                .stop(music),
                published(music, .background, .notRunning, .terminated(.memoryPressure), at: at(5)),
            ]
        )
    }

    @Test func P3_purgeBackgroundModeProcessInTheBackgroundKillsItAtOnce() throws {
        let audio = AppDescriptor(
            id: music,
            kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"], speaksProtocol: true)),
            backgroundModes: ["audio"]
        )
        var scheduler = try makeScheduler([audio])
        try scheduler.run(.launch, for: music, now: at(0))
        try scheduler.run(.enterBackground, for: music, now: at(1))
        let purge = scheduler.purgeRequested(now: at(5))
        // Expected: a running process gets SIGKILL at once, no SIGTERM and no grace timer (P2).
        #expect(purge.purged == music)
        #expect(purge.actions == [.kill(music)])
        #expect(scheduler.armedTimers.isEmpty)
        #expect(
            scheduler.processExited(music, exit: .signaled(9), now: at(5)) == [
                published(music, .background, .notRunning, .terminated(.memoryPressure), at: at(5), exit: .signaled(9))
            ]
        )
    }

    // MARK: Budget overrun kill (B6, S12)

    /// `app` launched at t=0 holding task "upload", in the background from t=0 with every message returned:
    /// warning at 25, deadline at 30.
    private func backgroundedWithTask(_ descriptor: AppDescriptor) throws -> (Scheduler, BackgroundTaskID) {
        var scheduler = try makeScheduler([descriptor])
        try scheduler.run(.launch, for: descriptor.id, now: at(0))
        let task = scheduler.beginTask("upload", in: descriptor.id, now: at(0))
        try scheduler.run(.enterBackground, for: descriptor.id, now: at(0))
        return (scheduler, task)
    }

    @Test func S12_overrunEmbeddedIsWarnedThenStoppedAtTheDeadline() throws {
        var (scheduler, task) = try self.backgroundedWithTask(AppDescriptor(id: mail))
        #expect(scheduler.clockAdvanced(to: at(25) - .nanoseconds(1)) == [])
        let warning = scheduler.clockAdvanced(to: at(25))
        let expire = Message.backgroundTaskWillExpire(task)
        // Expected: the task's handler at 30 - 5, then the wake-up moves to the deadline.
        #expect(
            warning == [
                .deliver(mail, expire, token(expire, to: mail, in: warning)),
                .armWakeup(at(30)),
            ]
        )
        #expect(scheduler.acknowledge(expire, of: mail, in: warning, now: at(26)) == [])
        #expect(scheduler.clockAdvanced(to: at(30) - .nanoseconds(1)) == [])
        // Expected: the task is still held at the deadline: stop, end the task, publish, no wake-up left.
        #expect(
            scheduler.clockAdvanced(to: at(30)) == [
                .stop(mail),
                .endTasks(mail, [task]),
                published(mail, .background, .notRunning, .terminated(.budgetOverrun), at: at(30)),
                .cancelWakeup,
            ]
        )
    }

    // MARK: A process ends on its own (L6)

    @Test func L6_activeProcessThatExitsEndsItsTasksAndDisturbsNoOtherApp() throws {
        var scheduler = try makeScheduler([protocolApp, process(maps)])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.launch, for: maps, now: at(0))
        let task = scheduler.beginTask("upload", in: mail, now: at(1))
        let other = scheduler.beginTask("route", in: maps, now: at(1))
        // Expected: end mail's task, publish active -> notRunning with reason exited(3) and the status.
        #expect(
            scheduler.processExited(mail, exit: .exited(3), now: at(3)) == [
                .endTasks(mail, [task]),
                published(mail, .active, .notRunning, .terminated(.exited(3)), at: at(3), exit: .exited(3)),
            ]
        )
        // Expected: maps's task is untouched; ending it in the foreground does nothing else.
        #expect(try scheduler.backgroundTaskEnded(other, by: maps, now: at(4)) == [])
        #expect(scheduler.state(of: maps) == .active)
    }

    @Test func L6_backgroundProcessThatIsSignaledLosesItsBudgetTimers() throws {
        var (scheduler, task) = try self.backgroundedWithTask(protocolApp)
        // Expected: end the task, publish background -> notRunning, reason signaled(11); warning and deadline
        // are disarmed: cancel the wake-up.
        #expect(
            scheduler.processExited(mail, exit: .signaled(11), now: at(4)) == [
                .endTasks(mail, [task]),
                published(mail, .background, .notRunning, .terminated(.signaled(11)), at: at(4), exit: .signaled(11)),
                .cancelWakeup,
            ]
        )
        // Expected: a second report for an app that is not running is ignored.
        #expect(scheduler.processExited(mail, exit: .signaled(11), now: at(4)) == [])
    }

    @Test func L6_suspendedProcessThatDiesPublishesWithoutMessages() throws {
        var scheduler = try makeScheduler([plainApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        // Expected: publish suspended -> notRunning only.
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(2)) == [
                published(mail, .suspended, .notRunning, .terminated(.signaled(9)), at: at(2), exit: .signaled(9))
            ]
        )
    }

    @Test func L6_processThatExitsWithAMessageInFlightIgnoresTheLateAcknowledgement() throws {
        var scheduler = try makeScheduler([protocolApp])
        let launch = try scheduler.commandReceived(.launch, for: mail, now: at(0))
        // Expected: publish inactive -> notRunning (still launching, L9); didBecomeActive is never delivered.
        #expect(
            scheduler.processExited(mail, exit: .exited(1), now: at(1)) == [
                published(mail, .inactive, .notRunning, .terminated(.exited(1)), at: at(1), exit: .exited(1))
            ]
        )
        #expect(scheduler.acknowledge(.didFinishLaunching, of: mail, in: launch, now: at(1)) == [])
    }

    @Test func L6_processThatExitsDuringItsTerminationMessagesKeepsTheTerminationReason() throws {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        let terminate = try scheduler.commandReceived(.terminate, for: mail, now: at(10))
        // Expected: publish with reason requested and the whole chain; the messages' grace is cancelled.
        #expect(
            scheduler.processExited(mail, exit: .exited(0), now: at(11)) == [
                published(
                    mail,
                    .active,
                    .notRunning,
                    .terminated(.requested),
                    at: at(11),
                    [.willResignActive, .didEnterBackground, .willTerminate],
                    exit: .exited(0)
                ),
                .cancelWakeup,
            ]
        )
        #expect(scheduler.acknowledge(.willResignActive, of: mail, in: terminate, now: at(12)) == [])
    }

    @Test func A5_protocolViolationKillsAtOnceWithoutAMessage() throws {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        // Expected: SIGKILL at once, no SIGTERM and no grace timer (P2); a second report is ignored.
        #expect(scheduler.protocolViolated(by: mail, now: at(3)) == [.kill(mail)])
        #expect(scheduler.protocolViolated(by: mail, now: at(3)) == [])
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(3)) == [
                published(mail, .active, .notRunning, .terminated(.protocolViolation), at: at(3), exit: .signaled(9))
            ]
        )
    }
}
