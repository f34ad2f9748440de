import Testing

@testable import RunwayCore

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
        // Embedded: the transition, then the first message (L2: one at a time).
        #expect(self.embedded.calls == ["\(mail) notRunning->active", "deliver \(mail) didFinishLaunching"])
        // Process: spawn, the transition, its OOM score (P3); a plain process gets no deliveries (A4).
        #expect(self.processes.calls == ["spawn \(maps)", "\(maps) notRunning->active", "oom \(maps) 0"])
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
}
