// `runway run`: the daemon in the foreground (Behaviour.md K1–K3, C3, P4).
//
// Design
// - One `RunwayScheduler` owns the loop thread. The control socket (`ControlSocketServer` + `ControlService`)
//   and the signal handles (`SignalWatcher`: SIGINT, SIGTERM, SIGHUP) run on that same loop; the daemon is
//   their only owner (no ServiceLifecycle signal handling here, A3).
// - The timeline is printed from the scheduler's transition observer, on the loop thread, in order; its
//   transitions only on a terminal unless `--timeline` says otherwise (TimelineMode.swift).
// - The configuration is loaded and validated completely before anything starts; a reload (SIGHUP or
//   `runway reload`) validates the whole new directory first and applies nothing if a file is bad (C3). It reads
//   off the loop and off `DaemonState` (ConfigReload.swift), and SIGHUP does not wait for it: no reload can delay a
//   stop (P4).
// - Stopping (SIGINT, SIGTERM, or the end of a scenario) terminates every app by the `terminate` rows, in
//   parallel, and returns when all are gone (P4); the socket file is removed (only if it is still a socket).
// - The default control socket's directory is created and checked (ControlSocketDirectory.swift, Docs/Security.md).

import Foundation
import Logging
@_spi(Processes) import Runway
import RunwayConfig
@_spi(Driver) @_spi(Processes) import RunwayCore

/// What `runway run` was asked to do.
package struct DaemonOptions: Sendable {
    /// The configuration directory (`Runway.plist`, `Apps/*.plist`).
    package var config: String
    /// A scenario file to play; the daemon stops when it is done.
    package var scenario: String?
    /// Overrides `ControlSocket` of `Runway.plist`.
    package var socket: String?
    /// Log level of the daemon's logger (standard error); nil: `LogLevel` of `Runway.plist`, else notice.
    package var logLevel: Logger.Level?
    /// Where the process state file goes; nil: `StateDirectory.defaultPath`.
    package var stateDirectory: String?
    /// `text` or `json` lines on standard error; nil: `LogFormat` of `Runway.plist`, else text.
    package var logFormat: DaemonLogFormat?
    /// Overrides `MetricsAddress` of `Runway.plist`: serve `GET /metrics` there.
    package var metricsAddress: MetricsAddress?
    /// Make this daemon's Prometheus registry the process's swift-metrics backend (`MetricsSystem.bootstrap`,
    /// once per process): `runway run` only, never tests that run daemons in their own process.
    package var bootstrapMetrics: Bool
    /// Where this boot's id is read (R6: a state preserved in another boot was left by a reboot).
    package var bootIDFile: String
    /// When the timeline shows transitions on standard output.
    package var timeline: TimelineMode

    package init(
        config: String,
        scenario: String? = nil,
        socket: String? = nil,
        logLevel: Logger.Level? = nil,
        stateDirectory: String? = nil,
        logFormat: DaemonLogFormat? = nil,
        metricsAddress: MetricsAddress? = nil,
        bootstrapMetrics: Bool = false,
        bootIDFile: String = "/proc/sys/kernel/random/boot_id",
        timeline: TimelineMode = .auto
    ) {
        self.config = config
        self.scenario = scenario
        self.socket = socket
        self.logLevel = logLevel
        self.stateDirectory = stateDirectory
        self.logFormat = logFormat
        self.metricsAddress = metricsAddress
        self.bootstrapMetrics = bootstrapMetrics
        self.bootIDFile = bootIDFile
        self.timeline = timeline
    }
}

/// The daemon's exit statuses (documented in `runway run --help` and README).
package enum DaemonExit {
    package static let success: Int32 = 0
    /// The configuration or the scenario is bad, or a scenario step failed.
    package static let failure: Int32 = 1
    /// The control socket could not be set up (for example another daemon serves it).
    package static let socketUnavailable: Int32 = 69
}

package enum Daemon {
    /// Runs the daemon until SIGINT/SIGTERM (or the scenario's end); returns the exit status.
    package static func run(_ options: DaemonOptions) async -> Int32 {
        // What is queued is written before the process exits, unless its reader stopped reading.
        defer { DaemonOutputStream.flushAll() }
        let configuration: RunwayConfiguration
        do {
            configuration = try ConfigLoader.load(directory: options.config)
        } catch {
            printError("error: \(error)")
            return DaemonExit.failure
        }
        for warning in configuration.warnings { printError("warning: \(warning)") }
        for warning in configuration.sharedUserWarnings(daemonUID: UInt32(geteuid())) {
            printError("warning: \(warning)")
        }
        var scenario: Scenario?
        if let file = options.scenario {
            do throws(ScenarioError) {
                scenario = try Scenario.load(file: file, configuration: configuration)
            } catch {
                printError("error: scenario \(error)")
                return DaemonExit.failure
            }
        }
        let logger = DaemonOperations.logger(options: options, configuration: configuration)
        let operations = DaemonOperations(options: options, configuration: configuration)
        let socketPath = options.socket ?? configuration.daemon.controlSocketPath
        let stateDirectory =
            options.stateDirectory ?? configuration.daemon.stateDirectory
            ?? StateDirectory.defaultPath(uid: UInt32(getuid()), environment: ProcessInfo.processInfo.environment)
        let stateFile = StateDirectory.stateFile(directory: stateDirectory, socket: socketPath)
        let scheduler: RunwayScheduler
        do {
            scheduler = try RunwayScheduler(
                settings: schedulerSettings(for: configuration),
                processOptions: processOptions(for: configuration, stateFile: stateFile),
                logger: logger,
                metricsFactory: operations.metrics?.factory,
                name: "runway-loop",
                loopPriority: configuration.daemon.loopRealtimePriority.map { .realtime(priority: $0) } ?? .inherited,
                wakeupSpin: configuration.daemon.loopWakeupSpin
            )
        } catch {
            printError("error: cannot start the event loop: \(error)")
            return DaemonExit.failure
        }
        // The watchdog pings from the loop's first turns: a start slower than WatchdogSec is a hang too.
        let systemd = operations.systemdNotifications(on: scheduler) { printError("warning: \($0)") }
        systemd.start()
        // What a daemon killed on this socket left (signal mode keeps no cgroup to find it by) is ended before
        // anything is registered or served.
        let ended = scheduler.endProcessesLeftByPreviousRun()
        if !ended.isEmpty {
            let list = ended.map { "\($0.pid)\($0.app.isEmpty ? "" : " (\($0.app))")" }.joined(separator: ", ")
            printOut("ended \(ended.count) process(es) left by a previous daemon (\(stateFile)): \(list)")
        }
        let state = DaemonState(scheduler: scheduler, configuration: configuration)
        let refusals = registerApps(configuration.apps, on: scheduler)
        if let app = configuration.apps.first(where: { refusals[$0.descriptor.id] != nil }) {
            printError("error: \(app.file): \(refusals[app.descriptor.id]!)")
            await scheduler.shutdown()
            return DaemonExit.failure
        }
        // R1-R7: the apps' preserved states, known to the core before anything launches.
        let restoration = DaemonRestoration.start(configuration, stateDirectory, socketPath, options, on: scheduler)
        await state.setRestoration(restoration)
        let width = max(24, configuration.apps.map(\.descriptor.id.bundleIdentifier.count).max() ?? 0)
        let terminal = isatty(STDOUT_FILENO) == 1
        let timeline = Timeline(
            scheduler: scheduler,
            appWidth: width,
            showsTransitions: options.timeline.showsTransitions(standardOutputIsTerminal: terminal)
        )
        Self.observe(scheduler, timeline: timeline, logger: logger)
        let history = startRunHistory(
            configuration: configuration,
            scheduler: scheduler,
            stateDirectory: stateDirectory,
            socket: socketPath
        )
        // A run's last words, read from the app's log ring when it ends: the history keeps why a run ended beside
        // what it printed last (Docs/Decisions/0091-the-run-history-reads-the-last-lines-through.md).
        history.setOutputSource { app in scheduler.lastLogLines(of: app, count: RunHistory.outputLineLimit) }

        let started = ContinuousClock.now
        let service = ControlService(
            scheduler: scheduler,
            info: {
                DaemonInfo(
                    pid: getpid(),
                    config: configuration.directory,
                    socket: socketPath,
                    uptimeSeconds: Double((ContinuousClock.now - started).components.seconds)
                        + Double((ContinuousClock.now - started).components.attoseconds) / 1e18
                )
            },
            reload: { dryRun in await state.reload(dryRun: dryRun, timeline: timeline) }
        )
        service.history = history
        service.restoration = restoration
        do {
            try prepareDirectory(of: socketPath)
            try service.start(
                path: socketPath,
                limits: ControlSocketServer.Limits(
                    maxClients: configuration.daemon.controlClientLimit,
                    maxQueuedWriteBytes: configuration.daemon.controlQueueByteLimit
                )
            )
        } catch {
            printError("error: \(error)")
            await scheduler.shutdown()
            return DaemonExit.socketUnavailable
        }
        let metricsURL: String?
        do {
            metricsURL = try await operations.serve(scheduler)
        } catch {
            printError("error: \(error)")
            await scheduler.shutdown()
            ControlSocketServer.removeSocketFile(at: socketPath)
            return DaemonExit.socketUnavailable
        }

        let (signals, signalContinuation) = AsyncStream.makeStream(of: Int32.self)
        let watcher = SignalWatcher(loop: scheduler.loopThread, signals: [SIGINT, SIGTERM, SIGHUP]) { number in
            signalContinuation.yield(number)
        }
        let signalStatus = scheduler.runOnLoop { watcher.start() } ?? 0
        if signalStatus != 0 { printError("warning: signal handling could not be installed (status \(signalStatus))") }

        let settings = configuration.settings
        printOut(
            "runway daemon pid \(getpid()): config \(configuration.directory) (\(configuration.apps.count) apps), "
                + "control socket \(socketPath) (mode 0600)"
        )
        printOut(
            "  budget \(settings.backgroundTimeBudget), warning lead \(settings.expirationWarningLead), "
                + "termination grace \(settings.terminationGrace), overrun \(settings.overrunPolicy.rawValue); "
                + "SIGINT/SIGTERM stop, SIGHUP reloads"
        )
        if configuration.daemon.loopRealtimePriority != nil || configuration.daemon.loopWakeupSpin > .zero {
            printOut(
                "  loop thread: \(scheduler.loopPriorityOutcome) (LoopRealtimePriority), "
                    + "wake-up spin \(configuration.daemon.loopWakeupSpin) (LoopWakeupSpin)"
            )
        }
        if let note = standInNote(configuration.apps) { printOut("  \(note)") }
        if let metricsURL { printOut("  metrics: \(metricsURL) (MetricsAddress)") }
        if let scenario {
            printOut(
                "  playing \(scenario.file): \(scenario.steps.count) steps over \(scenario.duration) s, then stopping"
            )
        }

        autostart(configuration.apps, on: scheduler, timeline: timeline)
        // systemd's Type=notify: the socket listens and the configuration is applied (Docs/Deployment.md).
        systemd.ready()
        operations.setPhase(.ready)
        let outcome = await Self.waitForStop(
            scenario: scenario.map { ScenarioPlayer(scenario: $0, scheduler: scheduler, timeline: timeline) },
            signals: signals,
            state: state,
            timeline: timeline
        )
        systemd.stopping()
        operations.setPhase(.stopping)
        let running = scheduler.status().filter { $0.state != .notRunning }.count
        timeline.note(nil, "\(outcome.reason): stopping; terminating \(running) running app(s) (P4)")
        await state.stop()
        systemd.stop()
        // Once every app has stopped (P4), the control socket's connections and the signal handles are closed by
        // their owners, which their close callbacks then free; a second SIGTERM meanwhile has its default action.
        await scheduler.shutdown(lastOnLoop: { [service] in
            service.server?.stop()
            watcher.stop()
        })
        await operations.stop()
        history.flush()
        restoration.flush()
        ControlSocketServer.removeSocketFile(at: socketPath)
        signalContinuation.finish()
        printOut("runway daemon stopped: every app is notRunning")
        if !outcome.failures.isEmpty {
            printError("scenario failed: \(outcome.failures.count) step(s):")
            for failure in outcome.failures { printError("  \(failure)") }
            return DaemonExit.failure
        }
        if scenario != nil { printOut("scenario \(options.scenario ?? ""): every step held") }
        return DaemonExit.success
    }
}
