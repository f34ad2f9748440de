// KeepAlive (launchd's key): which exits of an app Runway restarts, and the exponential backoff between restarts
// (Docs/Decisions/0099 to 0102). Pure values; the scheduler applies them in
// Scheduler+Restart.swift.

/// When an app that ended on its own is restarted (`KeepAlive` in its Info.plist), and how soon.
///
/// A plain value (Sendable, no clock): the scheduler reads it when an app ends and measures every delay on its own
/// clock, from the instant of the exit.
///
/// Only exits Runway did not cause count: `exited`, `signaled` and `spawnFailed`. Runway's own decisions
/// (`requested`, `shutdown`, `budgetOverrun`, `exitsOnSuspend`, `memoryPressure`, `backgroundEntryTimeout`,
/// `protocolViolation`) never restart an app, as on iOS.
public struct RestartPolicy: Hashable, Sendable {
    /// One condition of `KeepAlive`; the app is restarted when any of its conditions holds.
    public enum Condition: Hashable, Sendable {
        /// `KeepAlive = true`: after every exit Runway did not cause (any status, any signal, a failed spawn).
        case always
        /// `SuccessfulExit = YES`: after `exited(0)`. `SuccessfulExit = NO`: after a non-zero status, a signal or a
        /// failed spawn.
        case successfulExit(Bool)
        /// `Crashed = YES`: after a signal Runway did not send. `Crashed = NO`: after an exit with any status.
        case crashed(Bool)

        /// True when this condition restarts an app that ended for `reason`.
        func holds(for reason: TerminationReason) -> Bool {
            switch (self, reason) {
            case (.always, .exited), (.always, .signaled), (.always, .spawnFailed): return true
            case (.successfulExit(true), .exited(let status)): return status == 0
            case (.successfulExit(false), .exited(let status)): return status != 0
            case (.successfulExit(false), .signaled), (.successfulExit(false), .spawnFailed): return true
            case (.crashed(true), .signaled): return true
            case (.crashed(false), .exited): return true
            default: return false
            }
        }
    }

    /// The launchd default of `ThrottleInterval`: 10 s.
    public static let defaultThrottleInterval = TimeSpan.seconds(Int64(10))
    /// The shortest `ThrottleInterval` and `RestartBackoffLimit` the configuration accepts: 0.1 s, so that an app
    /// that exits at once is restarted at most ten times a second (a 1 ms wait let one such app cost the daemon 70%
    /// of a core in 200 restarts a second).
    public static let minimumRestartWait = TimeSpan.milliseconds(100)

    /// Restart when any of these holds; never empty.
    public var conditions: [Condition]
    /// `ThrottleInterval`: the delay before the first restart after a run; it doubles with each consecutive
    /// failure up to `SchedulerSettings.restartBackoffLimit`. Positive.
    public var throttleInterval: TimeSpan

    /// A policy that restarts when any of `conditions` holds, first after `throttleInterval`.
    ///
    /// - Parameters:
    ///   - conditions: launchd's `KeepAlive` conditions; at least one (a precondition).
    ///   - throttleInterval: The first delay; positive (a precondition).
    public init(conditions: [Condition] = [.always], throttleInterval: TimeSpan = Self.defaultThrottleInterval) {
        precondition(!conditions.isEmpty, "a restart policy needs at least one condition")
        precondition(throttleInterval > .zero, "throttleInterval must be positive, got \(throttleInterval)")
        self.conditions = conditions
        self.throttleInterval = throttleInterval
    }

    /// True when an app that ended for `reason` is restarted. Runway's own reasons never are.
    public func restarts(after reason: TerminationReason) -> Bool {
        self.conditions.contains { $0.holds(for: reason) }
    }

    /// The delay before the restart that follows the `failures`-th consecutive failure (1 for the first):
    /// `throttleInterval * 2^(failures - 1)`, at most `limit`. Never overflows.
    public func delay(afterFailures failures: Int, limit: TimeSpan) -> TimeSpan {
        var delay = self.throttleInterval
        var doublings = max(0, failures - 1)
        while doublings > 0, delay < limit {
            delay = delay + delay
            doublings -= 1
        }
        return min(delay, limit)
    }
}

/// A restart the scheduler has armed for an app that is `notRunning`.
public struct PendingRestart: Hashable, Sendable {
    /// When the app will be launched again.
    public var at: Instant
    /// Which restart it will be (1 for the app's first restart since the scheduler started).
    public var attempt: Int
    /// Consecutive failures that led to it (runs shorter than `restartBackoffReset` ended by a restart condition).
    public var consecutiveFailures: Int
    /// True once `consecutiveFailures` reached `SchedulerSettings.crashLoopThreshold`: the app keeps failing soon
    /// after each start (kubectl's CrashLoopBackOff). Restarts go on at the backoff limit.
    public var crashLooping: Bool

    /// A pending restart with every field given (the core makes them; tests compare with them).
    ///
    /// - Parameters:
    ///   - at: When the restart is due.
    ///   - attempt: Its number (n for the n-th restart).
    ///   - consecutiveFailures: The failures that led to it.
    ///   - crashLooping: Whether the app is crash-looping.
    public init(at: Instant, attempt: Int, consecutiveFailures: Int, crashLooping: Bool) {
        self.at = at
        self.attempt = attempt
        self.consecutiveFailures = consecutiveFailures
        self.crashLooping = crashLooping
    }
}

/// The restart bookkeeping of one app, for `status`.
public struct RestartStatus: Hashable, Sendable {
    /// Restarts Runway made of this app since the scheduler started.
    public var restarts: Int = 0
    /// Consecutive failures so far; reset by a run that lasted `restartBackoffReset`, by an end that is not a
    /// failure, and by an operator's `launch` or `terminate`.
    public var consecutiveFailures: Int = 0
    /// True while the app is crash-looping (see `PendingRestart.crashLooping`).
    public var crashLooping: Bool = false
    /// The restart armed now, if any.
    public var pending: PendingRestart?
    /// When the current run began (a launch or a restart); nil while the app is `notRunning`.
    public var runStarted: Instant?

    /// No restarts, no failures, nothing pending: an app that has not failed yet.
    public init() {}
}

/// The scheduler's private restart record of one app.
struct RestartRecord {
    var status = RestartStatus()
    /// The armed restart timer; set exactly when `status.pending` is.
    var timer: DeadlineHandle?
    /// True when the timer was re-armed at the restart's turn (`Scheduler.restartSlot`): it starts when it fires.
    var paced = false
}
