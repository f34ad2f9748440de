import Dispatch
@_spi(Processes) import Runway
import RunwayConfig
@_spi(Driver) @_spi(Processes) import RunwayCore

/// What reloading `new` over the running `current` configuration changes (C3). The loader has validated every
/// file of `new` already, so nothing here can fail.
///
/// Live: apps whose plist is new (registered in `notRunning`). Everything else that differs needs a restart
/// and keeps its running value: scheduler and daemon settings (budgets already armed would otherwise change
/// meaning mid-period), removed apps, and changed app plists (running apps keep their state, C3).
struct ConfigDiff {
    var added: [ConfiguredApp] = []
    var live: [String] = []
    var needsRestart: [String] = []

    init(current: RunwayConfiguration, new: RunwayConfiguration) {
        let currentApps = Dictionary(
            current.apps.map { ($0.descriptor.id, $0) },
            uniquingKeysWith: { first, _ in first }
        )
        let newIDs = Set(new.apps.map(\.descriptor.id))
        for app in new.apps {
            guard let running = currentApps[app.descriptor.id] else {
                self.added.append(app)
                self.live.append("add app \(app.descriptor.id) (\(app.file)), registered in notRunning")
                continue
            }
            if running.descriptor != app.descriptor {
                self.needsRestart.append("app \(app.descriptor.id) changed (\(app.file)); it keeps its running plist")
            }
        }
        for app in current.apps where !newIDs.contains(app.descriptor.id) {
            self.needsRestart.append(
                "app \(app.descriptor.id) removed; it stays registered until restart (KeepAlive still restarts it; "
                    + "`runway terminate` cancels a pending restart)"
            )
        }
        if current.settings != new.settings {
            self.needsRestart.append(
                "scheduler settings in Runway.plist changed (" + Self.settingsChanges(current.settings, new.settings)
                    + "); the running values are kept"
            )
        }
        var otherDaemonSettings = new.daemon
        otherDaemonSettings.operations = current.daemon.operations
        if current.daemon != otherDaemonSettings {
            self.needsRestart.append(
                "daemon settings in Runway.plist changed (control socket or its limits, suspension mechanism, "
                    + "memory pressure, loop priority or wake-up spin)"
            )
        }
        if current.daemon.operations != new.daemon.operations {
            self.needsRestart.append(
                "metrics or log settings in Runway.plist changed (MetricsAddress or its limits, LogLevel, LogFormat)"
            )
        }
    }

    private static func settingsChanges(_ old: SchedulerSettings, _ new: SchedulerSettings) -> String {
        var names: [String] = []
        if old.backgroundTimeBudget != new.backgroundTimeBudget { names.append("BackgroundTimeBudget") }
        if old.expirationWarningLead != new.expirationWarningLead { names.append("ExpirationWarningLead") }
        if old.backgroundEntryGrace != new.backgroundEntryGrace { names.append("BackgroundEntryGrace") }
        if old.terminationGrace != new.terminationGrace { names.append("TerminationGrace") }
        if old.overrunPolicy != new.overrunPolicy { names.append("OverrunPolicy") }
        if old.overrunSignalLead != new.overrunSignalLead { names.append("OverrunSignalLead") }
        if old.exitsOnSuspendStyle != new.exitsOnSuspendStyle { names.append("ExitsOnSuspendStyle") }
        if old.lockBehavior != new.lockBehavior { names.append("LockBehavior") }
        if old.budgetRefillPolicy != new.budgetRefillPolicy { names.append("BudgetRefillPolicy") }
        if old.notificationQueueLimit != new.notificationQueueLimit { names.append("NotificationQueueLimit") }
        if old.taskLimitPerApp != new.taskLimitPerApp { names.append("TaskLimitPerApp") }
        if old.taskNameByteLimit != new.taskNameByteLimit { names.append("TaskNameByteLimit") }
        if old.restartBackoffLimit != new.restartBackoffLimit { names.append("RestartBackoffLimit") }
        if old.restartBackoffReset != new.restartBackoffReset { names.append("RestartBackoffReset") }
        if old.crashLoopThreshold != new.crashLoopThreshold { names.append("CrashLoopThreshold") }
        if old.restartSpacing != new.restartSpacing { names.append("RestartRateLimit") }
        if old.backgroundWakeBudget != new.backgroundWakeBudget { names.append("BackgroundWakeBudget") }
        if old.backgroundWakeLimitPerApp != new.backgroundWakeLimitPerApp { names.append("BackgroundWakeLimitPerApp") }
        if old.backgroundWakePayloadByteLimit != new.backgroundWakePayloadByteLimit {
            names.append("BackgroundWakePayloadByteLimit")
        }
        if old.refreshMinimumInterval != new.refreshMinimumInterval { names.append("RefreshMinimumInterval") }
        return names.joined(separator: ", ")
    }
}

/// The running configuration; reloads (C3) and the stop are serialised here, off the loop thread.
///
/// Reading a configuration directory is file I/O, done on a serial queue of its own (`loadQueue`), never on the
/// actor: the actor is never blocked by a read, so `stop()` answers at once even while a reload reads, and a
/// reload whose read ends after the stop has begun applies nothing. Reading config never delays a stop (P4).
actor DaemonState {
    let scheduler: RunwayScheduler
    private(set) var configuration: RunwayConfiguration
    private var stopping = false
    /// The preserved states: apps added live are told of theirs before they launch (R5, R6).
    private var restoration: DaemonRestoration?
    /// Reads run one at a time, in the order the reloads were asked for, on one thread outside Swift's pool.
    private static let loadQueue = DispatchQueue(label: "runway-config-reload")

    init(scheduler: RunwayScheduler, configuration: RunwayConfiguration) {
        self.scheduler = scheduler
        self.configuration = configuration
    }

    /// Gives the reload the daemon's preserved states, once they are loaded.
    func setRestoration(_ restoration: DaemonRestoration) {
        self.restoration = restoration
    }

    /// C3: validates the whole directory first; applies nothing if any file is bad. Running apps keep their
    /// state; only new apps apply live, everything else is reported as needing a restart. Once `stop()` has been
    /// called, nothing is applied.
    func reload(dryRun: Bool, timeline: Timeline) async -> Result<ReloadReport, ControlErrorPayload> {
        guard !self.stopping else { return Self.refusedWhileStopping(timeline) }
        let new: RunwayConfiguration
        switch await Self.load(directory: self.configuration.directory) {
        case .success(let configuration):
            new = configuration
        case .failure(let error):
            timeline.note(nil, "reload refused, nothing applied: \(error)")
            return .failure(ControlErrorPayload(code: "reloadFailed", message: "nothing applied: \(error)"))
        }
        // The actor may have run another reload or the stop while this one read: decide on the state now.
        guard !self.stopping else { return Self.refusedWhileStopping(timeline) }
        // The daemon-wide user is part of every process app added live: applying the new one to added apps
        // while running apps keep the old one would half-apply it, so a reload that changes it applies nothing.
        if let key = Self.appUserChange(self.configuration.daemon.appUser, new.daemon.appUser) {
            let message = "nothing applied: \(key) changed in Runway.plist: restart the daemon to apply it"
            timeline.note(nil, "reload refused, \(message)")
            return .failure(ControlErrorPayload(code: "reloadFailed", message: message))
        }
        let diff = ConfigDiff(current: self.configuration, new: new)
        if !dryRun {
            var registered: [ConfiguredApp] = []
            let refusals = registerApps(diff.added, on: self.scheduler)
            for app in diff.added {
                if let error = refusals[app.descriptor.id] {
                    timeline.note(app.descriptor.id, "reload: not registered: \(error)")
                } else {
                    self.configuration.apps.append(app)
                    registered.append(app)
                }
            }
            self.restoration?.appsAdded(registered.map(\.descriptor), on: self.scheduler) {
                printError("warning: \($0)")
            }
            // The added apps' RunAtLoad launches go as one burst, in slices (Autostart.swift).
            autostart(registered, on: self.scheduler, timeline: timeline)
        }
        let report = ReloadReport(applied: !dryRun, live: diff.live, needsRestart: diff.needsRestart)
        let verb = dryRun ? "reload dry run" : "reloaded"
        timeline.note(nil, "\(verb): \(diff.live.count) live change(s), \(diff.needsRestart.count) needing a restart")
        for change in diff.live { timeline.note(nil, "  live: \(change)") }
        for change in diff.needsRestart { timeline.note(nil, "  needs restart: \(change)") }
        return .success(report)
    }

    /// The daemon is stopping: no reload applies anything from now on. Returns at once (no read holds the actor).
    func stop() {
        self.stopping = true
    }

    /// The key whose change makes `new` differ from the running daemon-wide app user (`AppUserName` for the
    /// user or its supplementary groups, `AppGroupName` for the group); nil when they are the same.
    private static func appUserChange(_ running: AppUser?, _ new: AppUser?) -> String? {
        guard running != new else { return nil }
        if let running, let new, running.name == new.name, running.uid == new.uid, running.gid != new.gid {
            return "AppGroupName"
        }
        return "AppUserName"
    }

    private static func refusedWhileStopping(_ timeline: Timeline) -> Result<ReloadReport, ControlErrorPayload> {
        timeline.note(nil, "reload refused, nothing applied: the daemon is stopping")
        return .failure(ControlErrorPayload(code: "reloadFailed", message: "nothing applied: the daemon is stopping"))
    }

    /// `ConfigLoader.load` on `loadQueue`; the calling task waits without holding the actor or a pool thread.
    private static func load(directory: String) async -> Result<RunwayConfiguration, ConfigError> {
        await withCheckedContinuation { continuation in
            Self.loadQueue.async {
                continuation.resume(
                    returning: Result { () throws(ConfigError) in try ConfigLoader.load(directory: directory) }
                )
            }
        }
    }
}
