/// What happens at the budget deadline to an app that still has outstanding background tasks (B6).
public enum OverrunPolicy: String, Hashable, Sendable, CaseIterable {
    /// Terminate the app with reason `budgetOverrun`, as iOS does. The default.
    case terminate
    /// End the outstanding tasks and suspend the app (or terminate it, for exits-on-suspend apps: E1).
    case suspend
}

/// How an app with `UIApplicationExitsOnSuspend` leaves the foreground (E1).
public enum ExitsOnSuspendStyle: String, Hashable, Sendable, CaseIterable {
    /// A Runway extension, opted into per app or in `Runway.plist`: the app enters the background, may finish
    /// background tasks under the normal budget, and is terminated (with `willTerminate`) wherever it would have
    /// been suspended.
    case drain
    /// The default, iOS 4 exactly: leaving the foreground sends `willResignActive`, `willTerminate`; the app
    /// never reaches the background and `beginBackgroundTask` returns `.invalid`.
    case immediate
}

/// What a screen lock does to the apps in the foreground (S7).
public enum LockBehavior: String, Hashable, Sendable, CaseIterable {
    /// iOS 4: lock sends `willResignActive` and the app stays inactive (no budget runs, it is never suspended);
    /// unlock sends `didBecomeActive`. The default: the seed scenario S7.
    case classic
    /// iOS 5 and later: lock sends `willResignActive` then `didEnterBackground`, so the app enters the background
    /// (its budget runs and it is suspended as any background app); unlock sends `willEnterForeground` then
    /// `didBecomeActive`.
    case modern
}

/// How a fresh background period's budget is computed (B7). Only one policy exists today; the setting is
/// named so that a limiting policy can be added without changing the config format.
public enum BudgetRefillPolicy: String, Hashable, Sendable, CaseIterable {
    /// Every background period starts with the full `BackgroundTimeBudget`. Unused time is not carried over.
    case fullEachPeriod
}

/// Scheduler-wide settings (`Config/Runway.plist`, C1). All durations are non-negative.
public struct SchedulerSettings: Hashable, Sendable {
    /// Default budget of extra background time per background period (B3). Default 30 s.
    public var backgroundTimeBudget: TimeSpan
    /// How long before the budget deadline expiration handlers are called (B4). Default 5 s.
    public var expirationWarningLead: TimeSpan
    /// How long `didEnterBackground` may take (L3). Default 5 s.
    public var backgroundEntryGrace: TimeSpan
    /// How long `willTerminate` may take, and when a process app is killed: this long after `willTerminate` was sent,
    /// or after SIGTERM when no message was awaited (L4, P2). Default 5 s.
    public var terminationGrace: TimeSpan
    /// What happens at the deadline to an app with outstanding tasks (B6). Default `.terminate`: a process app is
    /// sent SIGKILL at the deadline, with no SIGTERM before it unless `overrunSignalLead` asks for one.
    public var overrunPolicy: OverrunPolicy
    /// How long before the budget deadline a process app that still holds tasks is sent SIGTERM
    /// (`OverrunSignalLead`, B11), under `OverrunPolicy.terminate`; SIGKILL follows at the deadline. The notice
    /// falls no earlier than the background entry; one that would fall on the deadline is not sent. Default zero:
    /// no notice, SIGKILL at the deadline, as on iOS. The config loader keeps it within `BackgroundTimeBudget`.
    public var overrunSignalLead: TimeSpan = .zero
    /// Default style for apps with `UIApplicationExitsOnSuspend` (E1). Default `.immediate`, as on iOS.
    public var exitsOnSuspendStyle: ExitsOnSuspendStyle
    /// How budgets refill between background periods (B7). Default `.fullEachPeriod`.
    public var budgetRefillPolicy: BudgetRefillPolicy
    /// Most distinct notification names queued for one suspended app (N1). Default 64; at least 1.
    public var notificationQueueLimit: Int
    /// What a lock does (S7); apps may override it. Default `.classic`.
    public var lockBehavior: LockBehavior
    /// When memory pressure warns running apps and purges apps in P8's order (P3). Default 10 % and 30 % PSI.
    public var memoryPressure: MemoryPressurePolicy
    /// Most outstanding background tasks one app may hold (`TaskLimitPerApp`). One more is refused with
    /// `TaskRefusal.tooManyTasks`. Bounds what an app can make the scheduler keep. Default 1,000; at least 1.
    public var taskLimitPerApp: Int
    /// Longest background task name in UTF-8 bytes (`TaskNameByteLimit`). A longer one is refused with
    /// `TaskRefusal.nameTooLong`; names are never cut. Default 256; at least 1.
    public var taskNameByteLimit: Int
    /// KeepAlive: the longest delay between restarts (`RestartBackoffLimit`); the backoff doubles up to it.
    /// Default 300 s (kubelet's cap); positive.
    public var restartBackoffLimit: TimeSpan = .seconds(Int64(300))
    /// KeepAlive: a run at least this long resets the backoff (`RestartBackoffReset`). Default 600 s (kubelet's
    /// 10 minutes); not negative.
    public var restartBackoffReset: TimeSpan = .seconds(Int64(600))
    /// KeepAlive: this many consecutive failures make an app crash-looping (`CrashLoopThreshold`). Default 5; at
    /// least 1.
    public var crashLoopThreshold: Int = 5
    /// KeepAlive: the shortest time between two restarts started, over every app (`RestartRateLimit`, restarts a
    /// second, gives 1 s / limit). A restart due sooner after the last one waits its turn, in the order the
    /// restarts came due; none is dropped. Bounds the loop time a crash-looping fleet takes: one spawn per
    /// spacing, so that it cannot delay other apps' deadlines by more than one spawn. Default 20 ms (50 restarts a
    /// second); positive.
    public var restartSpacing: TimeSpan = .milliseconds(Int64(20))
    /// The budget a background wake-up gives (`BackgroundWakeBudget`, W2): the deadline of a woken app is at least
    /// this long after the wake-up. Apps may override it. Default 30 s, as iOS gives a background fetch.
    public var backgroundWakeBudget: TimeSpan
    /// Most background wake-ups one app may have outstanding, not yet completed (`BackgroundWakeLimitPerApp`, W5).
    /// One more is refused with `tooManyWakes`. Default 16; at least 1.
    public var backgroundWakeLimitPerApp: Int
    /// Longest wake-up payload in UTF-8 bytes (`BackgroundWakePayloadByteLimit`, W5). A longer one is refused with
    /// `payloadTooLarge`; payloads are never cut. Default 4,096 (an APNs payload's limit); at least 1.
    public var backgroundWakePayloadByteLimit: Int
    /// The shortest time between two scheduled refreshes of one app (`RefreshMinimumInterval`, W7): a request is
    /// due no earlier than this long after the app's previous refresh wake-up, whatever instant it asked for, so
    /// that an app cannot keep itself in the background by asking for refreshes back to back. Default 15 minutes,
    /// the spacing iOS is known to give `BGAppRefreshTask`s at best; zero for none.
    public var refreshMinimumInterval: TimeSpan = .seconds(Int64(900))
    /// `StateRestorationCrashWindow` (R4): a restored run that crashes before its `didFinishLaunching` returns, or
    /// within this long after it returned, discards the state it was given, so that a state that makes the app
    /// crash cannot make it crash at every launch. Default 30 s; zero: only a crash during the launch discards.
    public var stateRestorationCrashWindow: TimeSpan = .seconds(Int64(30))

    /// Settings with every value given or defaulted; each parameter sets the property of the same name, whose
    /// documentation gives its meaning, its `Runway.plist` key and its default. The defaults are iOS's: a 30 s
    /// budget, a 5 s warning lead and 5 s graces. Read by the scheduler when it is created (`Scheduler.init`,
    /// `RunwayScheduler.init`); a later change to a copy has no effect.
    ///
    /// - Precondition: The limits (`notificationQueueLimit`, `taskLimitPerApp`, `taskNameByteLimit`) are at
    ///   least 1, and no span is negative. The config loader reports these as errors naming the key instead.
    public init(
        backgroundTimeBudget: TimeSpan = .seconds(30),
        expirationWarningLead: TimeSpan = .seconds(5),
        backgroundEntryGrace: TimeSpan = .seconds(5),
        terminationGrace: TimeSpan = .seconds(5),
        overrunPolicy: OverrunPolicy = .terminate,
        exitsOnSuspendStyle: ExitsOnSuspendStyle = .immediate,
        budgetRefillPolicy: BudgetRefillPolicy = .fullEachPeriod,
        notificationQueueLimit: Int = 64,
        lockBehavior: LockBehavior = .classic,
        memoryPressure: MemoryPressurePolicy = MemoryPressurePolicy(),
        taskLimitPerApp: Int = 1_000,
        taskNameByteLimit: Int = 256,
        backgroundWakeBudget: TimeSpan = .seconds(30),
        backgroundWakeLimitPerApp: Int = 16,
        backgroundWakePayloadByteLimit: Int = 4_096
    ) {
        for (name, limit) in [
            ("notificationQueueLimit", notificationQueueLimit), ("taskLimitPerApp", taskLimitPerApp),
            ("taskNameByteLimit", taskNameByteLimit), ("backgroundWakeLimitPerApp", backgroundWakeLimitPerApp),
            ("backgroundWakePayloadByteLimit", backgroundWakePayloadByteLimit),
        ] {
            precondition(limit >= 1, "\(name) must be at least 1, got \(limit)")
        }
        for (name, span) in [
            ("backgroundTimeBudget", backgroundTimeBudget), ("expirationWarningLead", expirationWarningLead),
            ("backgroundEntryGrace", backgroundEntryGrace), ("terminationGrace", terminationGrace),
            ("backgroundWakeBudget", backgroundWakeBudget),
        ] {
            precondition(span >= .zero, "\(name) must not be negative, got \(span)")
        }
        self.backgroundTimeBudget = backgroundTimeBudget
        self.expirationWarningLead = expirationWarningLead
        self.backgroundEntryGrace = backgroundEntryGrace
        self.terminationGrace = terminationGrace
        self.overrunPolicy = overrunPolicy
        self.exitsOnSuspendStyle = exitsOnSuspendStyle
        self.budgetRefillPolicy = budgetRefillPolicy
        self.notificationQueueLimit = notificationQueueLimit
        self.lockBehavior = lockBehavior
        self.memoryPressure = memoryPressure
        self.taskLimitPerApp = taskLimitPerApp
        self.taskNameByteLimit = taskNameByteLimit
        self.backgroundWakeBudget = backgroundWakeBudget
        self.backgroundWakeLimitPerApp = backgroundWakeLimitPerApp
        self.backgroundWakePayloadByteLimit = backgroundWakePayloadByteLimit
    }
}

/// How an app runs: inside the host process, or as a child process.
public enum AppKind: Hashable, Sendable {
    /// An object in the host process. Every message is awaited (L2).
    case embedded
    /// A child process started from `ProgramArguments`. With `speaksProtocol` (plist `RunwayProtocol = 1`)
    /// messages are sent over the protocol channel and awaited; without it the process is a plain one that
    /// gets only signals, and messages are recorded but never waited for (L2, A4).
    @_spi(Processes) case process(ProcessSpec)
}

/// What the driver needs to start a process app (C1). The core never starts it itself.
@_spi(Processes)
public struct ProcessSpec: Hashable, Sendable {
    /// `ProgramArguments`: the executable path and its arguments; never empty.
    public var arguments: [String]
    /// `EnvironmentVariables`, added to the daemon's environment.
    public var environment: [String: String]
    /// `WorkingDirectory`, or nil for the daemon's own.
    public var workingDirectory: String?
    /// True when the plist declares `RunwayProtocol = 1` (A4).
    public var speaksProtocol: Bool
    /// Files its stdout and stderr lines are appended to, besides the daemon's ring; none by default.
    public var outputFiles: ProcessOutputFiles
    /// Resource limits applied when it starts (setrlimit in the child, ceilings on its cgroup); none by default.
    public var limits = ProcessLimits()
    /// `UserName` / `GroupName` / `InitGroups`: the user it runs as; nil for the daemon's own.
    public var user: AppUser? = nil

    /// A program to start; each parameter sets the property of the same name.
    ///
    /// - Precondition: `arguments` is not empty.
    public init(
        arguments: [String],
        environment: [String: String] = [:],
        workingDirectory: String? = nil,
        speaksProtocol: Bool = false,
        outputFiles: ProcessOutputFiles = ProcessOutputFiles()
    ) {
        precondition(!arguments.isEmpty, "a process app needs at least one program argument")
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.speaksProtocol = speaksProtocol
        self.outputFiles = outputFiles
    }
}

/// One app as the core sees it: validated values from its Info.plist (C1), or from the embedding host.
public struct AppDescriptor: Hashable, Sendable {
    /// The app's bundle identifier (`CFBundleIdentifier`), unique within one scheduler.
    public var id: AppID
    /// Embedded in the host process, or a child process with its program (`ProgramArguments`). Default embedded.
    public var kind: AppKind
    /// `UIApplicationExitsOnSuspend` (E1).
    public var exitsOnSuspend: Bool
    /// Per-app override of the scheduler's `exitsOnSuspendStyle`.
    public var exitsOnSuspendStyle: ExitsOnSuspendStyle?
    /// Per-app override of the scheduler's `lockBehavior` (S7).
    public var lockBehavior: LockBehavior?
    /// `UIBackgroundModes`; non-empty means the app runs in the background without a budget (L7). Background
    /// modes win over `exitsOnSuspend` (such an app is never suspended, so it never exits); the config loader
    /// rejects the combination.
    public var backgroundModes: [String]
    /// `RunAtLoad`: the host launches the app (with `launchCommand`) when it registers it, at start or on a
    /// reload that adds it. The core only carries the flag; the daemon sends the command.
    public var runAtLoad: Bool = false
    /// `KeepAlive` and `ThrottleInterval`: restart the app after an exit Runway did not cause; nil never does.
    public var keepAlive: RestartPolicy?
    /// `RunwayBackgroundTimeBudget`: overrides the scheduler's `backgroundTimeBudget` for this app (B3).
    /// Must not be negative.
    public var backgroundTimeBudget: TimeSpan?
    /// `RunwayBackgroundWakeBudget`: overrides the scheduler's `backgroundWakeBudget` for this app (W2). Must not
    /// be negative.
    public var backgroundWakeBudget: TimeSpan?
    /// Overrides the scheduler's `overrunPolicy` for this app (B6, B11); nil uses the scheduler's. Set by an
    /// embedding host or the benchmark; no plist key sets it.
    public var overrunPolicy: OverrunPolicy? = nil
    /// `RunwayStateVersion`: the version of the app's preserved state, a string the app chooses (R5). A state
    /// preserved under another version is discarded, not restored. Nil: no version (matches only nil).
    public var stateVersion: String? = nil

    /// An app with the given identity and keys; each parameter sets the property of the same name. The defaults
    /// are those of a plist without the key: embedded, not exits-on-suspend, the scheduler's styles and budget,
    /// no background modes.
    ///
    /// - Precondition: `backgroundTimeBudget`, when given, is not negative.
    public init(
        id: AppID,
        kind: AppKind = .embedded,
        exitsOnSuspend: Bool = false,
        exitsOnSuspendStyle: ExitsOnSuspendStyle? = nil,
        lockBehavior: LockBehavior? = nil,
        backgroundModes: [String] = [],
        backgroundTimeBudget: TimeSpan? = nil,
        backgroundWakeBudget: TimeSpan? = nil
    ) {
        precondition((backgroundTimeBudget ?? .zero) >= .zero, "\(id): backgroundTimeBudget must not be negative")
        precondition((backgroundWakeBudget ?? .zero) >= .zero, "\(id): backgroundWakeBudget must not be negative")
        self.id = id
        self.kind = kind
        self.exitsOnSuspend = exitsOnSuspend
        self.exitsOnSuspendStyle = exitsOnSuspendStyle
        self.lockBehavior = lockBehavior
        self.backgroundModes = backgroundModes
        self.backgroundTimeBudget = backgroundTimeBudget
        self.backgroundWakeBudget = backgroundWakeBudget
    }

    /// True for apps whose messages are awaited one at a time (L2): embedded apps and protocol processes.
    public var awaitsMessages: Bool {
        switch self.kind {
        case .embedded: return true
        case .process(let spec): return spec.speaksProtocol
        }
    }

    /// True for a process app (`AppKind.process`), false for an embedded one.
    public var isProcess: Bool {
        if case .process = self.kind { return true }
        return false
    }
}
