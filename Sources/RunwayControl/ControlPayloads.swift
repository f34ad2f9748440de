// The larger payloads of control replies (Docs/ControlProtocol.md): the daemon and its apps in `status`, and what a
// reload changes.

@_spi(Driver) @_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses

package struct DaemonInfo: Codable, Hashable, Sendable {
    package var pid: Int32
    package var config: String
    package var socket: String
    package var uptimeSeconds: Double
}

/// One app in a `status` reply (K2). Absent optional fields mean "not applicable".
package struct AppStatusPayload: Codable, Hashable, Sendable {
    package struct Task: Codable, Hashable, Sendable {
        package var id: UInt64
        package var name: String
        package var ageSeconds: Double
    }

    package var app: String
    /// `embedded` or `process`.
    package var kind: String
    package var state: String
    /// The reason of the termination in progress (the `terminating` flag).
    package var terminating: String?
    package var pid: Int32?
    /// `freezer` or `signal`: how the process is (or would be) suspended.
    package var suspension: String?
    /// True when the suspension was confirmed (cgroup.events `frozen 1`, or state `T`).
    package var suspensionConfirmed: Bool?
    /// Process apps: true while the app runs although it was sent SIGKILL, which the kernel refused (P2).
    package var killRefused: Bool?
    /// Process apps: true when the app is contained (a cgroup of its own and a user other than root and the
    /// daemon's: Docs/Security.md), false with `notContainedReason` otherwise.
    package var contained: Bool?
    package var notContainedReason: String?
    package var timeInStateSeconds: Double
    /// Outstanding background tasks in the order they began: the first `ControlService.statusTaskLimit` (16), or
    /// every one when the request asked for `tasks`. An app chooses its tasks' names and holds up to
    /// `TaskLimitPerApp` of them, so a plain `status` lists a bounded number.
    package var tasks: [Task]
    /// How many background tasks are outstanding; more than `tasks.count` when the list was cut.
    package var tasksTotal: Int?
    /// Budget left in this background period (0 once it ran out); absent outside a budgeted background period:
    /// unlimited (foreground, background modes), or not applicable (notRunning, suspended, terminating).
    package var budgetRemainingSeconds: Double?
    /// The budget deadline in seconds since the daemon started (the clock of `atSeconds` in events); absent
    /// outside a budgeted background period.
    package var deadlineAtSeconds: Double?
    package var messageInFlight: String?
    package var heldNotifications: Int
    package var lastTermination: String?
    package var lastExit: String?
    /// R2: the current run restored a state preserved by a run that ended so; absent for a launch from nothing.
    package var restoredFrom: String?
    /// How the last run ended, as state restoration sees it (R2-R4); absent before the first run ends.
    package var lastRunEnding: String?
    /// True when a preserved state is stored for the app (R1); absent otherwise.
    package var preservedState: Bool?
    /// KeepAlive restarts since the daemon started.
    package var restarts: Int?
    /// Consecutive failures counting towards the backoff (KeepAlive).
    package var consecutiveFailures: Int?
    /// True while the app is crash-looping: `CrashLoopThreshold` consecutive failures.
    package var crashLooping: Bool?
    /// The pending restart: its number, instant (seconds since the daemon started), wall time and delay from now.
    package var nextRestart: Int?
    package var nextRestartAtSeconds: Double?
    package var nextRestartWallTime: String?
    package var nextRestartInSeconds: Double?
    /// Seconds since the current run began (a launch or a restart); absent while notRunning.
    package var ageSeconds: Double?
    /// The run history, oldest first (the current run last, without `ended`); `RunHistoryLimit` runs at most.
    package var history: [RunRecord]?
    /// When the app's scheduled refresh is due (W7), in seconds since the daemon started; absent when none.
    package var nextRefreshAtSeconds: Double?
    /// Background wake-ups given and not yet completed in this background period (W4); absent when none.
    package var outstandingWakes: Int?
}

/// What a reload changes (C3).
package struct ReloadReport: Codable, Hashable, Sendable {
    /// True when the changes were applied; false for a dry run.
    package var applied: Bool
    /// Changes that take effect at once (new apps are registered in notRunning).
    package var live: [String]
    /// Changes that take effect only when the daemon restarts; the running values are kept.
    package var needsRestart: [String]

    package init(applied: Bool, live: [String], needsRestart: [String]) {
        self.applied = applied
        self.live = live
        self.needsRestart = needsRestart
    }
}

extension AppStatusPayload {
    init(_ status: AppStatus, process: ProcessRow?) {
        func seconds(_ span: TimeSpan) -> Double { span.seconds }
        self.app = status.app.bundleIdentifier
        self.kind = status.isProcess ? "process" : "embedded"
        self.state = status.state.rawValue
        self.terminating = status.terminating?.description
        self.pid = process?.pid
        self.suspension = process?.mechanism
        self.suspensionConfirmed = process?.suspensionConfirmed
        self.killRefused = process?.killRefused == true ? true : nil
        self.contained = process?.containment.isContained
        self.notContainedReason = process?.containment.reason
        self.timeInStateSeconds = seconds(status.timeInState)
        self.tasks = status.tasks.map { Task(id: $0.id.rawValue, name: $0.name, ageSeconds: seconds($0.age)) }
        self.tasksTotal = status.taskCount
        // Present exactly when `deadlineAtSeconds` is: the core's `backgroundTimeRemaining` is 0 for an app that is
        // not running, suspended or terminating, which the protocol reports as absent (Docs/ControlProtocol.md).
        self.budgetRemainingSeconds =
            status.deadline == nil || status.budgetRemaining == .max ? nil : seconds(status.budgetRemaining)
        self.deadlineAtSeconds = status.deadline.map { Double($0.nanosecondsSinceOrigin) / 1_000_000_000 }
        self.messageInFlight = status.messageInFlight?.description
        self.heldNotifications = status.heldNotifications
        self.lastTermination = status.lastTermination?.description
        self.lastExit = status.lastExit?.description
        self.restoredFrom = status.restoredFrom?.rawValue
        self.lastRunEnding = status.lastRunEnding?.rawValue
        self.preservedState = status.hasPreservedState ? true : nil
        self.restarts = status.restart.restarts
        self.consecutiveFailures = status.restart.consecutiveFailures
        self.crashLooping = status.restart.crashLooping
        self.nextRestart = status.restart.pending?.attempt
        self.nextRestartAtSeconds = status.restart.pending.map { Double($0.at.nanosecondsSinceOrigin) / 1e9 }
        self.nextRefreshAtSeconds = status.nextRefresh.map { Double($0.nanosecondsSinceOrigin) / 1_000_000_000 }
        self.outstandingWakes = status.outstandingWakes == 0 ? nil : status.outstandingWakes
    }
}

/// What the process driver knows about a process app (filled once process apps run in the daemon).
struct ProcessRow: Hashable, Sendable {
    var pid: Int32?
    var mechanism: String?
    var suspensionConfirmed: Bool
    var killRefused = false
    var containment: AppContainment = .notContained("not known")
}
