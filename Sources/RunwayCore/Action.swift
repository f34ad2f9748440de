/// What the scheduler asks its driver to do. Actions carry ids and instants, never closures or handles;
/// the driver keeps its own resources (uv handles, processes, expiration-handler closures) keyed by id.
///
/// The driver runs the actions of one call in order, before it feeds the scheduler its next event.
@_spi(Driver)
public enum Action: Hashable, Sendable, CustomStringConvertible {
    /// Deliver `message` to the app. For apps that await messages (embedded apps and protocol processes),
    /// report its return with `messageReturned(_:from:now:)`, passing `token`; nothing else is sent to that
    /// app until then (L2). Plain processes get no deliveries.
    case deliver(AppID, Message, MessageToken)
    /// Start the process app's program (its `ProcessSpec`). Report `spawnFailed` if it cannot start.
    case spawn(AppID)
    /// Suspend the app: freeze or SIGSTOP a process, hold an embedded app's executor (P1, A2).
    case suspend(AppID)
    /// Resume a suspended app: thaw or SIGCONT; an embedded app's held work is released once the resume's last
    /// message has returned (A2).
    case resume(AppID)
    /// An embedded app is gone: cancel its held work and release it. The app is already `notRunning`.
    case stop(AppID)
    /// Send SIGTERM to a running process app. The scheduler has armed SIGKILL at `TerminationGrace` (L4).
    case sendTerminateSignal(AppID)
    /// Send SIGKILL (or `cgroup.kill`) without thawing first (P2). Report the exit with `processExited`.
    case kill(AppID)
    /// Set the process app's `oom_score_adj` for its new state (P3): 0 active, 200 inactive, 500 background,
    /// 1000 suspended, so that the kernel's OOM killer follows the purge order. Follows the `publish` of the
    /// transition; the driver may decline to write it (`ProcessOptions.adjustsOOMScore`).
    case setOOMScoreAdjust(AppID, Int)
    /// Call the expiration handler the driver holds for this task of a plain process (B4), which is told nothing
    /// (A4): the task was begun on its behalf, by an operator or the embedder. Nothing is reported back, and a task
    /// begun without a handler has nothing to call.
    case callExpirationHandler(AppID, BackgroundTaskID)
    /// These tasks were ended by the scheduler, not the app (overrun suspension, termination): drop their
    /// expiration handlers.
    case endTasks(AppID, [BackgroundTaskID])
    /// The earliest deadline changed: wake up at this instant and call `clockAdvanced(to:)`.
    case armWakeup(Instant)
    /// No deadline is armed any more.
    case cancelWakeup
    /// A state transition happened (L8): publish it on the event stream.
    ///
    /// `indirect` (the event is boxed): a `TransitionEvent` is several times larger than every other case's
    /// payload, and inline it made every action that size, copied by `memcpy` each time an action moved (an
    /// eighth of an expiry's instructions, measured with callgrind). Transitions are rare beside deliveries.
    indirect case publish(TransitionEvent)

    /// The action and its arguments on one line, for simulation logs and test failures:
    /// `deliver(com.example.mail, didEnterBackground, msg#3)`.
    public var description: String {
        switch self {
        case .deliver(let app, let message, let token): return "deliver(\(app), \(message), \(token))"
        case .spawn(let app): return "spawn(\(app))"
        case .suspend(let app): return "suspend(\(app))"
        case .resume(let app): return "resume(\(app))"
        case .stop(let app): return "stop(\(app))"
        case .sendTerminateSignal(let app): return "sendTerminateSignal(\(app))"
        case .kill(let app): return "kill(\(app))"
        case .setOOMScoreAdjust(let app, let value): return "setOOMScoreAdjust(\(app), \(value))"
        case .callExpirationHandler(let app, let id): return "callExpirationHandler(\(app), \(id))"
        case .endTasks(let app, let ids): return "endTasks(\(app), \(ids))"
        case .armWakeup(let instant): return "armWakeup(\(instant))"
        case .cancelWakeup: return "cancelWakeup"
        case .publish(let event): return "publish(\(event))"
        }
    }
}

/// Why a transition happened.
public enum TransitionCause: Hashable, Sendable, CustomStringConvertible {
    /// A command from the host or an operator.
    case command(Command)
    /// The app was in the background with no outstanding task (B5, S2, S11).
    case noOutstandingTasks
    /// The budget deadline passed (B6): suspended with no tasks, or tasks ended by `OverrunPolicy.suspend`.
    case budgetExpired
    /// The app is gone (`to` is `notRunning`).
    case terminated(TerminationReason)
    /// KeepAlive launched the app again; this is its n-th restart (Scheduler+Restart.swift).
    case restart(Int)
    /// A background wake-up resumed the app or launched it into the background (W1).
    case backgroundWake(WakeReason)

    /// `command(<command>)`, `noOutstandingTasks`, `budgetExpired`, `terminated(<reason>)`, `restart(<n>)` or
    /// `backgroundWake(<reason>)`, as in event lines.
    public var description: String {
        switch self {
        case .command(let command): return "command(\(command))"
        case .noOutstandingTasks: return "noOutstandingTasks"
        case .budgetExpired: return "budgetExpired"
        case .terminated(let reason): return "terminated(\(reason))"
        case .restart(let attempt): return "restart(\(attempt))"
        case .backgroundWake(let reason): return "backgroundWake(\(reason))"
        }
    }
}

/// One transition on the scheduler's event stream (L8).
public struct TransitionEvent: Hashable, Sendable, CustomStringConvertible {
    /// The app that moved.
    public var app: AppID
    /// Its state before the transition.
    public var from: AppState
    /// Its state after the transition.
    public var to: AppState
    /// Why it moved: a command (the one a user action stood for), a rule, or a termination and its reason.
    public var cause: TransitionCause
    /// The monotonic instant of the transition.
    public var at: Instant
    /// The lifecycle messages of this transition, in delivery order (queued now, delivered one at a time).
    /// For a termination, every message of the termination, sent when it began.
    public var messages: [Message]
    /// For a process app that exited: how it ended.
    public var exit: ProcessExit?
    /// On a transition to `notRunning`: the restart KeepAlive armed, if any (Scheduler+Restart.swift).
    public var restart: PendingRestart?
    /// The user action that was asked, when the transition is that action's doing (section 4): `cause` says the
    /// command it stood for, this says what was asked. `home` arrives as `cause == .command(.enterBackground)`
    /// with `userAction == .home`; a device event (`DeviceEvent`) as its `userAction`. Set on every transition of
    /// the app that the action caused in the same step (the start of an exits-on-suspend app's termination after
    /// `home`, a plain process app's immediate suspension), and on the `notRunning` that ends a termination the
    /// action began (`switcherKill`, an accepted shutdown, `home` on an exits-on-suspend app), published once the
    /// app is gone; nil for a command, a deadline, a message's return (the suspension once `didEnterBackground`
    /// returns) or anything else not asked as a user action.
    public var userAction: UserAction?
    /// On a launch (from `notRunning`) that restores: how the run that preserved the state it is handed ended (R2);
    /// the driver delivers the stored state with `didFinishLaunching`. Nil for a launch from nothing.
    public var restoration: RunEnding?
    /// On a transition to `notRunning` of an app with a stored state: how the run ended, as state restoration sees
    /// it (R2-R4). Nil otherwise (`AppStatus.lastRunEnding` has it for every app).
    public var runEnding: RunEnding?
    /// On a transition to `notRunning` of an app with a stored state: true when it is kept for the next launch, false
    /// when it is discarded (R3, R4; the driver removes it). Nil when no state is stored.
    public var preservedStateKept: Bool?

    /// An event with every field given; the core makes them, tests and simulations compare with them.
    ///
    /// - Parameters:
    ///   - app: The app that moved.
    ///   - from: Its state before.
    ///   - to: Its state after.
    ///   - cause: Why it moved.
    ///   - at: The instant of the transition (the driver's clock reading for the step).
    ///   - messages: The lifecycle messages of this transition, in delivery order.
    ///   - exit: How a process app ended, when it exited.
    ///   - userAction: The user action that was asked, when the transition is its doing.
    public init(
        app: AppID,
        from: AppState,
        to: AppState,
        cause: TransitionCause,
        at: Instant,
        messages: [Message],
        exit: ProcessExit? = nil,
        userAction: UserAction? = nil
    ) {
        self.app = app
        self.from = from
        self.to = to
        self.cause = cause
        self.at = at
        self.messages = messages
        self.exit = exit
        self.userAction = userAction
    }

    /// One line: instant, app, `from -> to`, `[cause]`, the user action asked (`(home)`) if any, the messages in
    /// braces and a process's exit.
    public var description: String {
        let list = self.messages.map(\.description).joined(separator: ", ")
        let exit = self.exit.map { " \($0)" } ?? ""
        let restart = self.restart.map { " restart #\($0.attempt) at \($0.at)" + ($0.crashLooping ? " crashLoop" : "") }
        let asked = self.userAction.map { " (\($0.rawValue))" } ?? ""
        let restored = self.restoration.map { " restored(\($0))" } ?? ""
        return
            "\(self.at) \(self.app) \(self.from) -> \(self.to) [\(self.cause)]\(asked) {\(list)}\(exit)\(restart ?? "")"
            + restored
    }
}
