@_spi(Driver) import RunwayCore
import Testing

/// The `into:` forms of the hot events (`Scheduler+Buffered.swift`) against the `[Action]`-returning forms:
/// the same script on two schedulers gives the same actions, call by call, and a refused call leaves the caller's
/// buffer as it was.
@Suite struct BufferedEventTests {
    /// One call of the script: the task it began (if any) and the actions it produced.
    struct Step: Equatable {
        var task: BackgroundTaskID?
        var refusal: TaskRefusal?
        var actions: [Action]
    }

    /// The token of the delivery in `actions`, if any (one message is in flight per app, L2).
    private func firstToken(_ actions: [Action]) -> MessageToken? {
        for case .deliver(_, _, let token) in actions { return token }
        return nil
    }

    /// Launch, two tasks begun while active, background, the warning (B4), a task begun after it, expirations
    /// returned, tasks ended until the last suspends the app (B5), through the `into:` forms when `buffered`.
    private func script(buffered: Bool) throws -> [Step] {
        var scheduler = try makeScheduler()
        var buffer: [Action] = [.cancelWakeup]  // stale contents: every call must replace them
        var steps: [Step] = []
        var inFlight: MessageToken?
        func record(_ step: Step) {
            steps.append(step)
            if let token = self.firstToken(step.actions) { inFlight = token }
        }
        func begin(_ name: String, _ now: Instant) -> BackgroundTaskID {
            let grant =
                buffered
                ? scheduler.backgroundTaskRequested(name: name, by: mail, now: now, into: &buffer)
                : scheduler.backgroundTaskRequested(name: name, by: mail, now: now)
            #expect(buffered ? grant.actions.isEmpty : true)
            record(Step(task: grant.id, refusal: grant.refusal, actions: buffered ? buffer : grant.actions))
            return grant.id
        }
        func end(_ id: BackgroundTaskID, _ now: Instant) throws {
            if buffered {
                try scheduler.backgroundTaskEnded(id, by: mail, now: now, into: &buffer)
                record(Step(actions: buffer))
            } else {
                record(Step(actions: try scheduler.backgroundTaskEnded(id, by: mail, now: now)))
            }
        }
        func advance(_ now: Instant) {
            if buffered {
                scheduler.clockAdvanced(to: now, into: &buffer)
                record(Step(actions: buffer))
            } else {
                record(Step(actions: scheduler.clockAdvanced(to: now)))
            }
        }
        func returnInFlight(_ now: Instant) {
            guard let token = inFlight else {
                Issue.record("expected a message in flight after \(steps)")
                return
            }
            inFlight = nil
            if buffered {
                scheduler.messageReturned(token, from: mail, now: now, into: &buffer)
                record(Step(actions: buffer))
            } else {
                record(Step(actions: scheduler.messageReturned(token, from: mail, now: now)))
            }
        }

        try scheduler.run(.launch, for: mail, now: at(0))
        let first = begin("a", at(0))
        let second = begin("b", at(0))
        try scheduler.run(.enterBackground, for: mail, now: at(0))
        advance(at(25))
        returnInFlight(at(25))
        let late = begin("c", at(26))
        try end(second, at(26))
        returnInFlight(at(26))
        try end(first, at(27))
        returnInFlight(at(27))
        try end(late, at(28))
        return steps
    }

    @Test func theIntoFormsGiveTheSameActionsAsTheArrayForms() throws {
        let arrays = try self.script(buffered: false)
        let buffered = try self.script(buffered: true)
        #expect(buffered == arrays)
        // The script reaches what it is for: the warning's first delivery, and the suspension at the last end (B5).
        #expect(arrays.count == 10)
        #expect(arrays[2].actions.first.map { if case .deliver = $0 { true } else { false } } == true)
        #expect(arrays.last?.actions.contains(.suspend(mail)) == true)
    }

    @Test func aRefusedIntoCallLeavesTheBufferAsItWas() throws {
        var scheduler = try makeScheduler()
        try scheduler.run(.launch, for: mail, now: at(0))
        let task = scheduler.beginTask("a", in: mail, now: at(0))
        var buffer: [Action] = []
        try scheduler.backgroundTaskEnded(task, by: mail, now: at(1), into: &buffer)
        buffer = [.cancelWakeup]
        #expect(throws: SchedulerError.self) {
            try scheduler.backgroundTaskEnded(task, by: mail, now: at(2), into: &buffer)
        }
        #expect(buffer == [.cancelWakeup])
        // And the next accepted call replaces the contents.
        let grant = scheduler.backgroundTaskRequested(name: "b", by: mail, now: at(3), into: &buffer)
        #expect(grant.refusal == nil)
        #expect(buffer == [])
    }
}
