import Foundation
@_spi(Processes) import Runway
@_spi(Processes) @_spi(Driver) import RunwayCore
import RunwayLocking

/// Answers control requests (Docs/ControlProtocol.md) on the scheduler's loop thread: decodes each line,
/// runs it against the scheduler, encodes the reply (a `status` page off the loop, `ControlService+Encoding.swift`);
/// streams transitions to `events` subscribers.
///
/// Every problem with a request becomes an error reply on that connection only: invalid JSON, a missing or
/// mistyped field, an unknown command or app, a refused command. Nothing a client sends can stop the daemon.
///
/// Sendability: `@unchecked Sendable` is safe because `subscribers` and `server` are touched only on the loop
/// thread: `handle(_:)` and `broadcast(_:)` are called by the server and the scheduler's transition observer,
/// which run there, and `start()`/`stop()` run through `RunwayScheduler.runOnLoop`.
final class ControlService: @unchecked Sendable {
    /// Reloads the configuration (C3) off the loop; returns the report or an error reply.
    typealias Reload = @Sendable (_ dryRun: Bool) async -> Result<ReloadReport, ControlErrorPayload>

    /// Tasks listed per app in a `status` reply unless the request asks for every one (`tasks`): with names of up
    /// to `TaskNameByteLimit` bytes that JSON may write six bytes each, 16 keep an app's row under 16 x 1.6 KB at
    /// the default limit, where 1,000 tasks made it 1.6 MB, snapshotted on the loop thread.
    static let statusTaskLimit = 16

    let scheduler: RunwayScheduler
    let info: @Sendable () -> DaemonInfo
    let reload: Reload
    /// The run history for `status`; set once before `start`.
    var history: RunHistory?
    /// The apps' preserved states (R1-R7: discarding, exporting, importing); set once before `start`.
    package var restoration: DaemonRestoration?
    private(set) var server: ControlSocketServer?
    private var subscribers: Set<ControlSocketServer.ConnectionID> = []
    /// Connections following an app's output (`ControlService+Logs.swift`).
    var logFollowers: [ControlSocketServer.ConnectionID: LogFollow] = [:]
    /// Apps per state and the transition totals for `status` `summary`; set on the loop by `followTransitions`.
    var summaryCounts: StatusSummaryCounts?
    /// Each connection's replies in request order (`ControlService+Encoding.swift`).
    var replyOrder = ReplyOrder()
    /// `status` pages being taken in slices (`ControlService+StatusSlices.swift`).
    var statusPages = StatusPageQueue()
    let encodingCounts = RunwayLock(EncodingCounts())
    /// Exports being imported in parts, one per connection at most (`ControlService+State.swift`).
    var imports: [ControlSocketServer.ConnectionID: StateImport] = [:]

    init(scheduler: RunwayScheduler, info: @escaping @Sendable () -> DaemonInfo, reload: @escaping Reload) {
        self.scheduler = scheduler
        self.info = info
        self.reload = reload
    }

    /// Binds the socket (mode 0600) and starts serving; transitions reach subscribers from now on.
    ///
    /// - Parameter limits: Clients at once and bytes queued per client (`ControlClientLimit`,
    ///   `ControlQueueByteLimit`).
    func start(path: String, limits: ControlSocketServer.Limits = .init()) throws(ControlSocketError) {
        let server = ControlSocketServer(
            loop: self.scheduler.loopThread,
            path: path,
            limits: limits,
            refusalLine: { refusal in ControlProtocol.encodedLine(ControlService.refusalReply(refusal)) },
            onEvent: { [weak self] event in self?.handle(event) }
        )
        // `server` is set in the same loop-thread step that starts listening: a peer can connect and send a
        // request as soon as the socket exists, and its reply goes through `self.server`. (Setting it in a
        // later step lost the first reply of a client that connected in between, seen under CPU load.)
        let result: Result<Void, ControlSocketError>? = self.scheduler.runOnLoop {
            do throws(ControlSocketError) {
                self.server = server
                try server.start()
                return .success(())
            } catch {
                self.server = nil
                return .failure(error)
            }
        }
        switch result {
        case .success: break
        case .failure(let error): throw error
        case nil: throw ControlSocketError(path: path, step: "start", reason: "the scheduler has stopped")
        }
        self.followTransitions()
        self.scheduler.observeAppLogs { [weak self] app, line in self?.forwardLog(app, line) }
    }

    static func refusalReply(_ refusal: ControlSocketServer.Refusal) -> ControlReply {
        switch refusal {
        case .peerNotAllowed(let uid, let daemonUID):
            return .failure(
                "peerNotAllowed",
                "peer uid \(uid) is neither the daemon's (\(daemonUID)) nor root; connection refused"
            )
        case .peerUnknown(let errno):
            return .failure(
                "peerNotAllowed",
                "the peer's credentials could not be read (errno \(errno)); connection refused"
            )
        case .tooManyClients(let limit):
            return .failure(
                "tooManyClients",
                "the daemon serves at most \(limit) clients at once (ControlClientLimit); try again later"
            )
        case .slowReader(let limit):
            return .failure(
                "slowReader",
                "more than \(limit) bytes of replies or events were waiting for this connection, the limit "
                    + "(ControlQueueByteLimit); lines not yet sent were dropped and the connection is closed"
            )
        }
    }

    // MARK: Loop thread

    private func handle(_ event: ControlSocketServer.Event) {
        switch event {
        case .line(let connection, let bytes):
            if let reply = self.reply(to: bytes, from: connection) { self.deliver(reply, to: connection) }
        case .lineTooLong(let connection, let limit):
            let reply = ControlReply.failure(
                "lineTooLong",
                "request line longer than \(limit) bytes; it was discarded up to its newline"
            )
            self.deliverLine(ControlProtocol.encodedLine(reply), to: connection)
        case .closed(let connection):
            self.subscribers.remove(connection)
            self.replyOrder.closed(connection)
            self.logFollowers.removeValue(forKey: connection)
            self.imports.removeValue(forKey: connection)
        }
    }

    func broadcast(_ event: TransitionEvent) {
        guard let server = self.server, !self.subscribers.isEmpty else { return }
        var payload = TransitionPayload(event)
        payload.wallTime = WallClock(scheduler: self.scheduler).text(at: event.at)
        let line = ControlProtocol.encodedLine(ControlEventLine(event: payload))
        for subscriber in self.subscribers { server.send(line, to: subscriber) }
    }

    /// The reply to one request line, or nil when it will be sent later (reload).
    private func reply(to bytes: [UInt8], from connection: ControlSocketServer.ConnectionID) -> ControlReply? {
        let request: ControlRequest
        switch Self.decode(bytes) {
        case .success(let decoded): request = decoded
        case .failure(let error): return .failure(error.code, error.message)
        }
        let id = request.id
        if let version = request.v, version != ControlProtocol.version {
            return .failure(
                "unsupportedVersion",
                "field 'v': this daemon speaks version \(ControlProtocol.version), the request asked for \(version)",
                id: id
            )
        }
        guard let command = ControlCommand(request.command) else {
            return .failure(
                "unknownCommand",
                "field 'command': unknown command '\(request.command)'; expected one of "
                    + ControlCommand.allNames.joined(separator: ", "),
                id: id
            )
        }
        var app: AppID?
        if let name = request.app {
            guard !name.isEmpty else { return .failure("invalidRequest", "field 'app': must not be empty", id: id) }
            app = AppID(name)
        }
        if command.needsApp, app == nil {
            return .failure("invalidRequest", "field 'app': command '\(request.command)' needs an app", id: id)
        }
        do throws(SchedulerError) {
            switch command {
            case .status:
                return self.statusOnConnection(request, app: app, id: id, connection: connection)
            case .events:
                self.subscribers.insert(connection)
                var reply = ControlReply(id: id, ok: true)
                reply.subscribed = true
                return reply
            case .reload:
                self.startReload(dryRun: request.dryRun ?? false, id: id, connection: connection)
                return nil
            case .lifecycle(let lifecycle):
                try self.scheduler.perform(lifecycle, on: app!)
            case .userAction(let action):
                // Without an app (`needsApp` allows that for device events only): device-wide (S7, S8, S10).
                guard let app else { return self.deviceEventReply(action, command: request.command, id: id) }
                try self.scheduler.perform(action, on: app)
            case .expire:
                try self.scheduler.expireBudget(of: app!)
            case .notify:
                if let failure = try self.notify(request, app: app!) { return failure }
            case .memoryWarning:
                guard let app else { return self.memoryWarningReply(id: id) }
                try self.scheduler.memoryWarning(for: app)
            case .purge:
                return self.purgeReply(id: id)
            case .logs:
                return self.logsReply(request, app: app!, connection: connection)
            case .wake:
                return try self.wakeReply(request, app: app!)
            case .discardState, .exportState, .importState:
                return self.stateReply(command, request, app: app!, connection: connection)
            case .beginTask:
                // The name's length and the app's number of tasks are checked by the core, for every kind of
                // app alike (TaskNameByteLimit, TaskLimitPerApp); only a missing or empty name is refused here.
                guard let name = request.task, !name.isEmpty else {
                    return .failure("invalidRequest", "field 'task': beginTask needs a non-empty task name", id: id)
                }
                return self.beginTaskReply(name: name, app: app!, id: id)
            case .endTask:
                guard let raw = request.taskID else {
                    return .failure("invalidRequest", "field 'taskID': endTask needs the id beginTask returned", id: id)
                }
                try self.scheduler.endBackgroundTask(BackgroundTaskID(rawValue: raw), for: app!)
            case .extend:
                guard let seconds = request.seconds, seconds.isFinite, seconds > 0, seconds <= 86_400,
                    let span = TimeSpan.seconds(seconds)
                else {
                    let found = request.seconds.map { "\($0)" } ?? "nothing"
                    return .failure(
                        "invalidRequest",
                        "field 'seconds': expected a number of seconds in (0, 86400], found \(found)",
                        id: id
                    )
                }
                try self.scheduler.extendBudget(of: app!, by: span)
            }
        } catch {
            return .failure(error.code.description, error.description, id: id)
        }
        if let failure = self.spawnFailureReply(command, app: app, id: id) { return failure }
        var reply = ControlReply(id: id, ok: true)
        // One app's snapshot, O(1): a command at 10,000 apps costs the loop what it costs at one. Read after the
        // command, so that the reply gives the state it left the app in, with the termination it began.
        let status = app.flatMap { self.scheduler.status(of: $0) }
        reply.state = status?.state.rawValue
        reply.terminating = status?.terminating?.description
        // P1: a suspension or resumption the kernel refused is said so at once, not left for `status` to show.
        if let app, status?.isProcess == true, self.scheduler.processes(of: [app])[app]?.suspensionRefused == true {
            reply.suspensionRefused = true
        }
        return reply
    }

    private func startReload(dryRun: Bool, id: Int?, connection: ControlSocketServer.ConnectionID) {
        let reload = self.reload
        let scheduler = self.scheduler
        Task {
            var reply: ControlReply
            switch await reload(dryRun) {
            case .success(let report):
                reply = ControlReply(id: id, ok: true)
                reply.reload = report
            case .failure(let error):
                reply = .failure(error.code, error.message, id: id)
            }
            let line = ControlProtocol.encodedLine(reply)
            _ = scheduler.runOnLoop { [weak self] in self?.server?.send(line, to: connection) }
        }
    }

    /// Decodes a request, or describes what is wrong with it: not JSON, not an object, a field missing or of
    /// the wrong type (named by its key).
    static func decode(_ bytes: [UInt8]) -> Result<ControlRequest, ControlErrorPayload> {
        let data = Data(bytes)
        guard (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil else {
            return .failure(ControlErrorPayload(code: "invalidJSON", message: "the request line is not valid JSON"))
        }
        do {
            return .success(try JSONDecoder().decode(ControlRequest.self, from: data))
        } catch {
            return .failure(ControlErrorPayload(code: "invalidRequest", message: fieldProblem(error)))
        }
    }
}
