@_spi(Driver) import RunwayTestKit
import Testing

@_spi(Driver) @testable import RunwayCore

/// The one runner of actions (`ActionRunner`), with recording hosts: it sends each action to the host of the
/// app's kind, serves expiration handlers itself, queues re-entrant events behind the current actions and
/// reports the wake-up once per drained queue.
@Suite struct ActionRunnerTests {
    /// Records every call; messages are returned only when the test says so.
    final class RecordingHost: AppHost {
        var calls: [String] = []
        var tokens: [AppID: MessageToken] = [:]

        func deliver(_ message: Message, token: MessageToken, to app: AppID) {
            self.calls.append("deliver \(app) \(message)")
            self.tokens[app] = token
        }
        func spawn(_ app: AppID) { self.calls.append("spawn \(app)") }
        func suspend(_ app: AppID) { self.calls.append("suspend \(app)") }
        func resume(_ app: AppID) { self.calls.append("resume \(app)") }
        func stop(_ app: AppID) { self.calls.append("stop \(app)") }
        func sendTerminateSignal(_ app: AppID) { self.calls.append("SIGTERM \(app)") }
        func kill(_ app: AppID) { self.calls.append("SIGKILL \(app)") }
        func setOOMScoreAdjust(_ value: Int, for app: AppID) { self.calls.append("oom \(app) \(value)") }
        func transitioned(_ event: TransitionEvent) { self.calls.append("\(event.app) \(event.from)->\(event.to)") }
    }

    final class Clock {
        var now = Instant.origin
    }

    let clock = Clock()
    let embedded = RecordingHost()
    let processes = RecordingHost()
    let runner: ActionRunner

    init() throws {
        let clock = self.clock
        self.runner = ActionRunner(core: Scheduler(), now: { clock.now })
        self.runner.embeddedHost = self.embedded
        self.runner.processHost = self.processes
        try self.runner.register(AppDescriptor(id: mail))
        try self.runner.register(process(maps, speaksProtocol: false))
    }

    func returnMessage(_ app: AppID) {
        guard let token = self.embedded.tokens.removeValue(forKey: app) else {
            Issue.record("no message in flight for \(app)")
            return
        }
        self.runner.run { $0.messageReturned(token, from: app, now: $1) }
    }

    @Test func actionsGoToTheHostOfTheAppsKind() throws {
        try self.runner.attempt { core, now throws(SchedulerError) in
            try core.commandReceived(.launch, for: mail, now: now)
        }
        try self.runner.attempt { core, now throws(SchedulerError) in
            try core.commandReceived(.launch, for: maps, now: now)
        }
        // Embedded: the transition to inactive (L9), then the first message (L2: one at a time).
        #expect(self.embedded.calls == ["\(mail) notRunning->inactive", "deliver \(mail) didFinishLaunching"])
        // Process: spawn, both steps of the launch (L9) with their OOM scores (P3); a plain process gets no
        // deliveries (A4) and is not waited for.
        #expect(
            self.processes.calls == [
                "spawn \(maps)", "\(maps) notRunning->inactive", "oom \(maps) 200", "\(maps) inactive->active",
                "oom \(maps) 0",
            ]
        )
        self.returnMessage(mail)
        #expect(self.embedded.calls.last == "deliver \(mail) didBecomeActive")
    }

    @Test func B4_aHandlerHeldByTheRunnerRunsInsteadOfADeliveryAndMayEndItsTaskAtOnce() throws {
        try self.runner.attempt { core, now throws(SchedulerError) in
            try core.commandReceived(.launch, for: mail, now: now)
        }
        self.returnMessage(mail)
        self.returnMessage(mail)
        var handlerCalls = 0
        var handled: [BackgroundTaskID] = []
        let grant = self.runner.beginTask(name: "upload", app: mail) { task in
            handlerCalls += 1
            handled.append(task)
            // Re-entrant: the runner feeds the end now and queues its actions behind the current ones.
            try? self.runner.endTask(task, app: mail)
        }
        try self.runner.attempt { core, now throws(SchedulerError) in
            try core.commandReceived(.enterBackground, for: mail, now: now)
        }
        self.returnMessage(mail)  // willResignActive
        self.returnMessage(mail)  // didEnterBackground
        var wakeups: [Instant?] = []
        self.runner.onWakeupChanged = { wakeups.append($0) }
        // The warning is due at 30 - 5 = 25 s.
        self.clock.now = at(25)
        self.runner.run { core, now in core.clockAdvanced(to: now) }
        #expect(handlerCalls == 1)
        // The handler is given its own task's id.
        #expect(handled == [grant.id])
        // The delegate never sees the expiration message; the task's end suspends the app (B5).
        #expect(!self.embedded.calls.contains { $0.contains("backgroundTaskWillExpire") })
        #expect(self.embedded.calls.suffix(2) == ["suspend \(mail)", "\(mail) background->suspended"])
        // One wake-up change for the whole drained queue: nothing is armed any more.
        #expect(wakeups == [nil])
        #expect(self.runner.wakeup == nil)
        self.runner.core.checkInvariants()
    }

    @Test func aTaskWithoutAHandlerHasItsExpirationDeliveredToTheHost() throws {
        try self.runner.attempt { core, now throws(SchedulerError) in
            try core.commandReceived(.launch, for: mail, now: now)
        }
        self.returnMessage(mail)
        self.returnMessage(mail)
        let grant = self.runner.beginTask(name: "sync", app: mail, handler: nil)
        try self.runner.attempt { core, now throws(SchedulerError) in
            try core.commandReceived(.enterBackground, for: mail, now: now)
        }
        self.returnMessage(mail)
        self.returnMessage(mail)
        self.clock.now = at(25)
        self.runner.run { core, now in core.clockAdvanced(to: now) }
        #expect(self.embedded.calls.last == "deliver \(mail) backgroundTaskWillExpire(\(grant.id))")
    }

    @Test func B4_aHandlerHeldForAPlainProcessTaskIsCalledAtTheWarningAndTheProcessIsToldNothing() throws {
        try self.runner.attempt { core, now throws(SchedulerError) in
            try core.commandReceived(.launch, for: maps, now: now)
        }
        var handled: [BackgroundTaskID] = []
        var counted = 0
        self.runner.onHandlerCalled = { counted += 1 }
        let grant = self.runner.beginTask(name: "export", app: maps) { handled.append($0) }
        let bare = self.runner.beginTask(name: "bare", app: maps, handler: nil)
        try self.runner.attempt { core, now throws(SchedulerError) in
            try core.commandReceived(.enterBackground, for: maps, now: now)
        }
        // The warning is due at 30 - 5 = 25 s: the one handler held, once; the task without one has none to call.
        self.clock.now = at(25)
        self.runner.run { core, now in core.clockAdvanced(to: now) }
        #expect(handled == [grant.id])
        #expect(counted == 1)
        #expect(bare.refusal == nil && bare.id != grant.id)
        #expect(!self.processes.calls.contains { $0.hasPrefix("deliver") }, "\(self.processes.calls)")
        #expect(self.runner.wakeup == at(30))
        self.runner.core.checkInvariants()
    }

    /// Records deliveries so the test can return them, and kills; every other action is ignored.
    final class DeliveringHost: AppHost {
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

    /// B9/L4 with `TerminationGrace = 0`: an exits-on-suspend app whose budget ends while `didEnterBackground` is
    /// still out is sent `willTerminate` with its grace (and kill deadline) armed at the very instant whose wake-up
    /// just fired, so the core's earliest deadline does not change; the loop's one-shot timer is disarmed by then,
    /// so the runner must announce the wake-up again or the app, which never returns, would never be killed.
    @Test func L4_aKillDeadlineArmedAtTheInstantThatFiredGetsAWakeUp() throws {
        let clock = Clock()
        let host = DeliveringHost()
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
        descriptor.exitsOnSuspendStyle = .drain
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
}
