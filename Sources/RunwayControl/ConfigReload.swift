import RunwayConfig
import RunwayCore

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
            self.needsRestart.append("app \(app.descriptor.id) removed; it stays registered until restart")
        }
        if current.settings != new.settings {
            self.needsRestart.append(
                "scheduler settings in Runway.plist changed (" + Self.settingsChanges(current.settings, new.settings)
                    + "); the running values are kept"
            )
        }
        if current.daemon != new.daemon {
            self.needsRestart.append(
                "daemon settings in Runway.plist changed (control socket or its limits, suspension mechanism, "
                    + "memory pressure, loop priority or wake-up spin)"
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
        if old.exitsOnSuspendStyle != new.exitsOnSuspendStyle { names.append("ExitsOnSuspendStyle") }
        if old.lockBehavior != new.lockBehavior { names.append("LockBehavior") }
        if old.budgetRefillPolicy != new.budgetRefillPolicy { names.append("BudgetRefillPolicy") }
        if old.notificationQueueLimit != new.notificationQueueLimit { names.append("NotificationQueueLimit") }
        if old.taskLimitPerApp != new.taskLimitPerApp { names.append("TaskLimitPerApp") }
        if old.taskNameByteLimit != new.taskNameByteLimit { names.append("TaskNameByteLimit") }
        return names.joined(separator: ", ")
    }
}
