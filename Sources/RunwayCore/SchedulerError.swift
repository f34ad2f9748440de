/// An error the scheduler reports to a caller. Nothing changed when one is thrown.
///
/// `code` is opaque so that new codes can be added; compare against the static members.
public struct SchedulerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, one of the static members (`unknownApp`, `illegalCommand`, ...); opaque so that codes can
    /// be added without breaking a `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unknownApp, duplicateApp, illegalCommand, unknownTask, alreadyEnded, wrongApp
            case notRunning, stopping, unsupportedApp, noBudget
            case notWakeable, tooManyWakes, payloadTooLarge, unknownWake
            case stateTooLarge, stateNotStored
        }

        private var base: Base

        private init(_ base: Base) { self.base = base }

        /// No app with this bundle identifier is registered.
        public static let unknownApp = Code(.unknownApp)
        /// An app with this bundle identifier is already registered.
        public static let duplicateApp = Code(.duplicateApp)
        /// The command is not legal in the app's current state (L1).
        public static let illegalCommand = Code(.illegalCommand)
        /// `endBackgroundTask` with an id that was never issued, or `.invalid` (B8).
        public static let unknownTask = Code(.unknownTask)
        /// `endBackgroundTask` with an id that has already ended (B8).
        public static let alreadyEnded = Code(.alreadyEnded)
        /// `endBackgroundTask` with an id that belongs to another app (B8).
        public static let wrongApp = Code(.wrongApp)
        /// A notification or memory warning was sent to an app that is not running (or, for a warning, suspended),
        /// or an app that is not running asked for a scheduled refresh (W7).
        public static let notRunning = Code(.notRunning)
        /// The scheduler is shutting down and accepts no launches (or, for a runtime, has stopped).
        public static let stopping = Code(.stopping)
        /// The driver cannot run this kind of app (for example a process app on an embedding-only runtime).
        public static let unsupportedApp = Code(.unsupportedApp)
        /// An operator override (`extend`, `expire`) for an app with no running background budget: not in the
        /// background, a background-mode app (L7), or terminating.
        public static let noBudget = Code(.noBudget)
        /// A background wake-up the app's state does not allow (W3): `fetch` to an app in the foreground, any
        /// wake-up to a terminating app or (outside the foreground) to an immediate-style exits-on-suspend app.
        public static let notWakeable = Code(.notWakeable)
        /// The app already has `backgroundWakeLimitPerApp` wake-ups outstanding (W5).
        public static let tooManyWakes = Code(.tooManyWakes)
        /// The wake-up payload is longer than `backgroundWakePayloadByteLimit` bytes (W5).
        public static let payloadTooLarge = Code(.payloadTooLarge)
        /// A completion named a wake-up token that was never issued (W4).
        public static let unknownWake = Code(.unknownWake)
        /// A preserved state is larger than `limit` bytes (`StateRestorationByteLimit`, R1).
        public static let stateTooLarge = Code(.stateTooLarge)
        /// The state could not be stored (the store's problem is logged, R1).
        public static let stateNotStored = Code(.stateNotStored)

        /// The code's name (`unknownApp`, `alreadyEnded`, ...), as in the control socket's and the app protocol's
        /// error replies.
        public var description: String { self.base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// The app the call named, when it named one.
    public var app: AppID?
    /// The app's state when the error happened.
    public var state: AppState?
    /// True when the app was terminating when the error happened.
    public var terminating: Bool
    /// The refused command, for `illegalCommand`.
    public var command: Command?
    /// The refused user action, for `illegalCommand` when the action has a rule of its own beyond its command's
    /// (`switcherKill`, S15); the message then names the action instead of the command.
    public var userAction: UserAction?
    /// The task the call named, for `unknownTask`, `alreadyEnded` and `wrongApp`.
    public var task: BackgroundTaskID?
    /// The app that owns `task`, for `wrongApp`.
    public var owner: AppID?
    /// The limit that was exceeded, for `tooManyWakes` and `payloadTooLarge`.
    public var limit: Int?
    /// The wake-up's reason, for `notWakeable`; `refresh` for a `notRunning` refused to `scheduleRefresh` (W7).
    public var wakeReason: WakeReason?
    /// The token a completion named, for `unknownWake`.
    public var wake: WakeToken?
    /// The source file (`#fileID`) where the error was raised, for bug reports; not part of the message.
    public var file: String
    /// The line in `file` where the error was raised.
    public var line: Int

    /// An error raised by the core or a driver of this package; `file` and `line` name where. Callers outside
    /// the package only receive these.
    package init(
        _ code: Code,
        app: AppID? = nil,
        state: AppState? = nil,
        terminating: Bool = false,
        command: Command? = nil,
        task: BackgroundTaskID? = nil,
        owner: AppID? = nil,
        limit: Int? = nil,
        wakeReason: WakeReason? = nil,
        wake: WakeToken? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.app = app
        self.state = state
        self.terminating = terminating
        self.command = command
        self.task = task
        self.owner = owner
        self.limit = limit
        self.wakeReason = wakeReason
        self.wake = wake
        self.file = file
        self.line = line
    }

    /// One line for people and logs: the code, then what it concerns, naming the app, its state, the command or
    /// the task (`illegalCommand: com.example.mail cannot enterForeground in state notRunning`).
    public var description: String {
        let app = self.app.map { "\($0)" } ?? "?"
        let state = (self.state.map { "\($0)" } ?? "?") + (self.terminating ? " (terminating)" : "")
        let task = self.task.map { "\($0)" } ?? "?"
        switch self.code {
        case .unknownApp: return "unknownApp: no app '\(app)' is registered"
        case .duplicateApp: return "duplicateApp: an app '\(app)' is already registered"
        case .illegalCommand:
            let command = self.userAction.map(\.rawValue) ?? self.command.map { "\($0)" } ?? "?"
            return "illegalCommand: \(app) cannot \(command) in state \(state)"
        case .unknownTask: return "unknownTask: \(app) ended \(task), which was never issued"
        case .alreadyEnded: return "alreadyEnded: \(app) ended \(task), which has already ended"
        case .wrongApp:
            return "wrongApp: \(app) ended \(task), which belongs to \(self.owner.map { "\($0)" } ?? "?")"
        case .notRunning where self.wakeReason == .refresh:
            return "notRunning: \(app) is in state \(state) and cannot ask for a scheduled refresh (W7)"
        case .notRunning:
            return "notRunning: \(app) is in state \(state) and cannot receive notifications or memory warnings"
        case .stopping: return "stopping: the scheduler is shutting down or stopped; the request for \(app) was refused"
        case .unsupportedApp: return "unsupportedApp: \(app) is a process app; this driver runs embedded apps only"
        case .noBudget: return "noBudget: \(app) has no running background budget in state \(state)"
        case .notWakeable:
            let reason = self.wakeReason.map { "\($0)" } ?? "?"
            return "notWakeable: \(app) in state \(state) cannot be woken for \(reason) (W3)"
        case .tooManyWakes:
            let limit = self.limit.map { "\($0)" } ?? "?"
            return "tooManyWakes: \(app) already has \(limit) background wake-ups outstanding, the limit "
                + "(BackgroundWakeLimitPerApp)"
        case .payloadTooLarge:
            let limit = self.limit.map { "\($0)" } ?? "?"
            return "payloadTooLarge: the wake-up payload for \(app) is longer than \(limit) bytes, the limit "
                + "(BackgroundWakePayloadByteLimit)"
        case .stateTooLarge:
            let limit = self.limit.map { "\($0)" } ?? "?"
            return "stateTooLarge: the state \(app) preserves is more than \(limit) bytes, the limit "
                + "(StateRestorationByteLimit); the stored state stays as it was"
        case .unknownWake:
            return "unknownWake: \(app) completed \(self.wake.map { "\($0)" } ?? "?"), which was never issued"
        default: return "\(self.code): \(app)"
        }
    }
}

/// Why `backgroundTaskRequested` returned `.invalid` (B1, E1), or which limit it hit. Drivers log it and
/// pass its `description` to whoever asked (the app protocol's `refusal`, the control socket's error).
public enum TaskRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// No app with this bundle identifier is registered.
    case unknownApp
    /// The app is not running.
    case notRunning
    /// The app is suspended: only an app that runs may ask for time.
    case suspended
    /// The app is being terminated.
    case terminating
    /// The budget of the current background period has run out.
    case budgetExhausted
    /// `UIApplicationExitsOnSuspend` with `ExitsOnSuspendStyle = immediate` (E1).
    case exitsOnSuspendImmediately
    /// The app already holds `limit` outstanding tasks (`SchedulerSettings.taskLimitPerApp`).
    case tooManyTasks(limit: Int)
    /// The name is longer than `limit` UTF-8 bytes (`SchedulerSettings.taskNameByteLimit`).
    case nameTooLong(limit: Int)

    /// The reason without its numbers, for metrics dimensions and logs: `suspended`, `tooManyTasks`, ...
    public var code: String {
        switch self {
        case .unknownApp: return "unknownApp"
        case .notRunning: return "notRunning"
        case .suspended: return "suspended"
        case .terminating: return "terminating"
        case .budgetExhausted: return "budgetExhausted"
        case .exitsOnSuspendImmediately: return "exitsOnSuspendImmediately"
        case .tooManyTasks: return "tooManyTasks"
        case .nameTooLong: return "nameTooLong"
        }
    }

    /// The code, and for a limit the limit and the setting that sets it:
    /// `tooManyTasks: the app already holds 1000 outstanding background tasks, the limit (TaskLimitPerApp)`.
    public var description: String {
        switch self {
        case .tooManyTasks(let limit):
            return "tooManyTasks: the app already holds \(limit) outstanding background tasks, the limit "
                + "(TaskLimitPerApp)"
        case .nameTooLong(let limit):
            return "nameTooLong: the task name is longer than \(limit) bytes, the limit (TaskNameByteLimit)"
        default:
            return self.code
        }
    }
}

/// The answer to `backgroundTaskRequested`: an id, or `.invalid` with the reason.
@_spi(Driver)
public struct TaskGrant: Hashable, Sendable {
    /// The new task's id, or `.invalid`.
    public var id: BackgroundTaskID
    /// Why the id is `.invalid`; nil when a task began.
    public var refusal: TaskRefusal?
    /// Actions to run (for example the expiration message of a task begun after the warning, B4).
    public var actions: [Action]
}
