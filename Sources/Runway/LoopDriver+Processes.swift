@_spi(Driver) @_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses
import RunwayProtocol

/// The `AppHost` of process apps: hands the core's actions to the `ProcessSupervisor`. Loop thread only.
final class ProcessAppHost: AppHost {
    let supervisor: ProcessSupervisor
    let restoration: StateRestoration

    init(supervisor: ProcessSupervisor, restoration: StateRestoration) {
        self.supervisor = supervisor
        self.restoration = restoration
    }

    func deliver(_ message: Message, token: MessageToken, to app: AppID) {
        // R2: the launch that restores hands the state over with its didFinishLaunching.
        if message == .didFinishLaunching, let restored = self.restoration.launching.removeValue(forKey: app) {
            let ending = restored.ending.rawValue
            self.supervisor.deliverRestoring(token: token, to: app, state: restored.state, restoration: ending)
            return
        }
        self.supervisor.deliver(message, token: token, to: app)
    }

    func restoringLaunch(_ app: AppID, from ending: RunEnding) -> Bool {
        self.restoration.restoringLaunch(app, from: ending)
    }

    func transitioned(_ event: TransitionEvent) { self.restoration.transitioned(event) }

    func spawn(_ app: AppID) { self.supervisor.spawn(app) }

    func suspend(_ app: AppID) { self.supervisor.suspend(app) }

    func resume(_ app: AppID) { self.supervisor.resume(app) }

    func sendTerminateSignal(_ app: AppID) { self.supervisor.terminate(app) }

    func kill(_ app: AppID) { self.supervisor.kill(app) }

    func setOOMScoreAdjust(_ value: Int, for app: AppID) { self.supervisor.setOOMScoreAdjust(value, for: app) }

    func stop(_ app: AppID) { preconditionFailure("stop for process app \(app)") }
}

extension LoopDriver {
    /// Registers a process app (`AppKind.process`); its child starts on `launch`.
    func register(process descriptor: AppDescriptor) throws(SchedulerError) {
        if let refusal = self.register(processes: [descriptor])[descriptor.id] { throw refusal }
    }

    /// Registers process apps, each as `register(process:)` does, in the order given; one refusal does not stop
    /// the others. The process supervisor takes them all at once (one growth of the descriptor table).
    ///
    /// - Returns: The refusals by app: `unsupportedApp`, `stopping`, `duplicateApp`; empty when all were registered.
    func register(processes descriptors: some Sequence<AppDescriptor>) -> [AppID: SchedulerError] {
        self.assertOnLoop()
        var refusals: [AppID: SchedulerError] = [:]
        var registered: [(app: AppID, spec: ProcessSpec)] = []
        for descriptor in descriptors {
            guard case .process(let spec) = descriptor.kind else {
                refusals[descriptor.id] = SchedulerError(.unsupportedApp, app: descriptor.id)
                continue
            }
            guard !self.runner.core.isStopping else {
                refusals[descriptor.id] = SchedulerError(.stopping, app: descriptor.id)
                continue
            }
            do throws(SchedulerError) {
                try self.runner.register(descriptor)
                registered.append((descriptor.id, spec))
            } catch {
                refusals[descriptor.id] = error
            }
        }
        if !registered.isEmpty { self.processSupervisor().register(registered) }
        return refusals
    }

    /// The process supervisor, created at the first call. Creating it ends what a predecessor left when
    /// `ProcessOptions.stateFile` is set (`ProcessSupervisor+StateFile.swift`).
    package func processSupervisor() -> ProcessSupervisor {
        self.assertOnLoop()
        if let supervisor = self.supervisor { return supervisor }
        let made = ProcessSupervisor(loop: self.loop, options: self.processOptions, logger: self.logger)
        made.delegate = self
        made.logs.lineRefused = { [metrics = self.metrics] app, stream in metrics.appLogLineRefused(app, stream) }
        made.suspensionUnconfirmed = { [metrics = self.metrics] _ in metrics.suspensionUnconfirmed() }
        made.signalRefusedByKernel = { [metrics = self.metrics] _, signal in metrics.signalRefused(signal) }
        self.supervisor = made
        self.runner.processHost = ProcessAppHost(supervisor: made, restoration: self.restoration)
        return made
    }

    func processStatus() -> [AppID: ProcessStatus] {
        self.assertOnLoop()
        return self.supervisor?.statusOfEveryApp() ?? [:]
    }

    func processStatus(of app: AppID) -> ProcessStatus? {
        self.assertOnLoop()
        return self.supervisor?.status(of: app)
    }

    /// Starts sampling memory pressure if configured (P3). Called once, on the loop, after init.
    func startMemoryMonitor() {
        self.assertOnLoop()
        guard let options = self.processOptions.memoryPressure, self.memoryMonitor == nil else { return }
        let monitor = MemoryPressureMonitor(
            options: options,
            warningPercent: self.runner.core.settings.memoryPressure.warningPercent,
            loop: self.loop.handles.loop,
            logger: self.logger
        )
        monitor.residentBytes = { [unowned self] in self.supervisor?.residentBytes() ?? 0 }
        monitor.onSample = { [unowned self] sample in
            let before = self.runner.core.memoryPressureLevel
            let purged = self.runner.runReturning { $0.memoryPressureSampled(sample, now: $1) }
            let after = self.runner.core.memoryPressureLevel
            if after != before {
                self.logger.info(
                    "memory pressure level changed",
                    metadata: ["from": "\(before)", "to": "\(after)", "sample": "\(sample)"]
                )
            }
            if let purged { self.logger.info("purged under memory pressure", metadata: ["app": "\(purged)"]) }
            return after != .normal
        }
        monitor.start()
        self.memoryMonitor = monitor
    }
}

extension LoopDriver: ProcessSupervisorDelegate {
    package func processExited(_ app: AppID, exit: ProcessExit) {
        self.runner.run { $0.processExited(app, exit: exit, now: $1) }
    }

    package func processFailedToStart(_ app: AppID, error: String) {
        self.logger.info("process app failed to start", metadata: ["app": "\(app)", "error": "\(error)"])
        self.runner.run { $0.spawnFailed(app, error: error, now: $1) }
    }

    package func processViolatedProtocol(_ app: AppID, reason: String) {
        self.runner.run { $0.protocolViolated(by: app, now: $1) }
    }

    package func processAcknowledged(_ token: MessageToken, app: AppID) {
        self.messageReturned(token, from: app)
    }

    package func processRequested(_ request: AppToRunway, app: AppID, reply: @escaping (RunwayToApp) -> Void) {
        switch request {
        case .ack(let token):
            self.processAcknowledged(MessageToken(rawValue: token), app: app)
        case .beginBackgroundTask(let request, let name):
            let grant = self.beginTask(name: name, app: app, handler: nil)
            // The refusal names its reason, and for a limit the limit (tooManyTasks, nameTooLong).
            let refusal = grant.refusal.map { "beginBackgroundTask refused for \(app): \($0)" }
            reply(.taskBegun(request: request, task: grant.id.rawValue, refusal: refusal))
        case .endBackgroundTask(let request, let task):
            // The answer goes out before the actions run: ending the last task suspends the app at once (B5),
            // and a frozen app could not read it until it is resumed.
            do {
                try self.endTask(BackgroundTaskID(rawValue: task), app: app) { reply(.taskEnded(request: request)) }
            } catch {
                reply(.error(request: request, code: error.code.description, message: error.description))
            }
        case .backgroundTimeRemaining(let request):
            let remaining = self.backgroundTimeRemaining(for: app)
            reply(.timeRemaining(request: request, seconds: remaining == .max ? nil : remaining.seconds))
        case .backgroundWakeCompleted, .scheduleRefresh:
            self.processRequestedWake(request, app: app, reply: reply)
        case .preserveState(let request, let state, let more):
            self.statePartReceived(app: app, request: request, part: state, more: more, reply: reply)
        case .discardState(let request):
            self.stateDiscardRequested(app: app, request: request, reply: reply)
        }
    }
}

extension LoopDriver {
    /// P4's stop may complete: every app is notRunning, or the rest are process apps the kernel would not let the
    /// supervisor kill (SIGKILL refused, no `cgroup.kill`; logged there), which no wait would end. Those are left
    /// running, and logged. Loop thread only; O(apps) while stopping.
    var appsStoppedOrUnkillable: Bool {
        let core = self.runner.core
        if core.allAppsStopped { return true }
        guard let supervisor = self.supervisor else { return false }
        let left = core.appIDs.filter { core.state(of: $0) != .notRunning }
        guard left.allSatisfy({ supervisor.isKillRefused($0) }) else { return false }
        self.logger.warning(
            "stopping with apps the daemon could not kill; they are left running",
            metadata: ["apps": .array(left.map { .string("\($0)") })]
        )
        return true
    }
}
