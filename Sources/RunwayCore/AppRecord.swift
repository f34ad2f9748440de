/// The scheduler's private record of one app. Mutated only by `Scheduler`.
struct AppRecord {
    var descriptor: AppDescriptor
    var lifecycle = Lifecycle.notRunning
    /// When the visible state last changed (for "time in state").
    var stateSince = Instant.origin
    /// How the last run ended; kept while the app runs again.
    var lastTermination: TerminationReason?
    var lastExit: ProcessExit?
    /// KeepAlive: restarts, failures and the pending restart (Scheduler+Restart.swift).
    var restart = RestartRecord()
    /// The pending scheduled refresh (W7), kept across runs; its timer is not among `timers`, which end with a run.
    var refresh: RefreshRequest?
    /// When the app's last scheduled refresh woke it (W7, `refreshMinimumInterval`), kept across runs.
    var lastRefresh: Instant?
    /// The cause of a launch into the foreground whose `didFinishLaunching` has not returned (L9): the app is
    /// inactive until then, and this cause is published again with the step to active. Nil otherwise.
    var launching: TransitionCause?
    /// State restoration: what is stored and whether the current run restored it (Scheduler+Restoration.swift).
    var restoration = RestorationRecord()

    init(descriptor: AppDescriptor) {
        self.descriptor = descriptor
    }

    var id: AppID { self.descriptor.id }

    var state: AppState { self.lifecycle.state }

    var hasBackgroundModes: Bool { !self.descriptor.backgroundModes.isEmpty }

    /// Every timer the app holds: its background period's and its termination's.
    var timers: [DeadlineHandle] { self.timerKinds.map(\.handle) }

    /// Every timer the app holds, with what it is for.
    var timerKinds: [(handle: DeadlineHandle, kind: TimerKind)] {
        var kinds: [(handle: DeadlineHandle, kind: TimerKind)] = []
        self.forEachTimer { handle, kind in kinds.append((handle, kind)) }
        return kinds
    }

    /// Calls `body` with every timer the app holds and what it is for (`timerKinds`, in the same order). Builds no
    /// array.
    func forEachTimer(_ body: (DeadlineHandle, TimerKind) -> Void) {
        switch self.lifecycle {
        case .background(let period, _): period.forEachTimer(body)
        case .terminating(let termination, _): if let timer = termination.timer { body(timer, .termination) }
        case .notRunning: if let timer = self.restart.timer { body(timer, .restart) }
        case .foreground, .suspended: break
        }
    }
}

/// What a timer in the scheduler's deadline queue is for.
enum TimerKind: Hashable, Sendable {
    /// B4: call the expiration handlers.
    case expirationWarning
    /// B6: the budget deadline.
    case budgetDeadline
    /// B11: SIGTERM before the deadline to a process app that still holds tasks.
    case overrunNotice
    /// L3: `didEnterBackground` did not return in time.
    case backgroundEntryGrace
    /// L4: the termination messages did not finish in time, or SIGKILL is due.
    case termination
    /// KeepAlive: launch a `notRunning` app again (Scheduler+Restart.swift).
    case restart
    /// W7: a scheduled refresh is due.
    case refresh
}

struct TimerKey: Hashable, Sendable {
    var app: Int
    var kind: TimerKind
}
