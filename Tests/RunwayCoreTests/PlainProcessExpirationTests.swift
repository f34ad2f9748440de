@_spi(Driver) import RunwayCore
import Testing

/// B4 for a plain process (A4): it is sent no message, so the tasks it holds were begun on its behalf (an
/// operator's `begin-task`, the embedder); their handlers are still called, each once, at the warning, with a
/// `callExpirationHandler` action and never a delivery. Defaults: budget 30 s, warning lead 5 s.
@Suite struct PlainProcessExpirationTests {
    @Test func B4_everyOutstandingTaskOfAPlainProcessHasItsHandlerCalledOnceAtTheWarning() throws {
        var scheduler = try makeScheduler([plainApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        let first = scheduler.beginTask("a", in: mail, now: at(0))
        let ended = scheduler.beginTask("b", in: mail, now: at(0))
        let third = scheduler.beginTask("c", in: mail, now: at(0))
        #expect(try scheduler.backgroundTaskEnded(ended, by: mail, now: at(0)) == [])
        let home = try scheduler.commandReceived(.enterBackground, for: mail, now: at(0))
        #expect(home.last == .armWakeup(at(25)))
        // Expected at 30 - 5: both outstanding tasks' handlers in the order the tasks began, in one call (a plain
        // process is not waited for, L2), none for the ended task; then the wake-up moves to the deadline.
        #expect(
            scheduler.clockAdvanced(to: at(25)) == [
                .callExpirationHandler(mail, first),
                .callExpirationHandler(mail, third),
                .armWakeup(at(30)),
            ]
        )
        // Expected: a task begun after the warning has its handler called at once.
        let late = scheduler.backgroundTaskRequested(name: "d", by: mail, now: at(27))
        #expect(late.refusal == nil)
        #expect(late.actions == [.callExpirationHandler(mail, late.id)])
        // Expected at 30: the tasks are still held: SIGKILL (B6, OverrunPolicy terminate); no handler again.
        let deadline = scheduler.clockAdvanced(to: at(30))
        #expect(deadline.first == .kill(mail), "\(deadline)")
        #expect(!deadline.contains { if case .callExpirationHandler = $0 { true } else { false } }, "\(deadline)")
    }

    @Test func B4_anOperatorsExpiryCallsAPlainProcessTaskHandlerBeforeTheOverrun() throws {
        var scheduler = try makeScheduler([plainApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        let task = scheduler.beginTask("upload", in: mail, now: at(0))
        _ = try scheduler.commandReceived(.enterBackground, for: mail, now: at(0))
        let expired = try scheduler.budgetExpiredByOperator(for: mail, now: at(3))
        // Expected at 3: the wake-up moves to now; nothing else until it fires.
        #expect(expired == [.armWakeup(at(3))])
        let due = scheduler.clockAdvanced(to: at(3))
        // Expected: the handler (the warning, armed first, B10), then the deadline: SIGKILL.
        #expect(due.first == .callExpirationHandler(mail, task), "\(due)")
        #expect(due.dropFirst().first == .kill(mail), "\(due)")
    }
}
