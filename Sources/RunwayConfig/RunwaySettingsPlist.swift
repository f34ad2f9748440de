@_spi(Driver) @_spi(Processes) @_spi(Benchmarks) import RunwayCore
@_spi(Processes) import RunwayProcesses

/// `Runway.plist` as `PropertyListDecoder` reads it (C1). Every key is optional; absent keys take the defaults
/// of `SchedulerSettings.init` and `DaemonSettings.init`. Keys are decoded, and so checked, in declaration order.
struct RunwaySettingsPlist: Decodable {
    var backgroundTimeBudget: Double?
    var expirationWarningLead: Double?
    var backgroundEntryGrace: Double?
    var terminationGrace: Double?
    var overrunPolicy: String?
    var overrunSignalLead: Double?
    var suspensionMechanism: String?
    var exitsOnSuspendStyle: String?
    var lockBehavior: String?
    var budgetRefillPolicy: String?
    var notificationQueueLimit: Int?
    var taskLimitPerApp: Int?
    var taskNameByteLimit: Int?
    var controlSocket: String?
    var memoryPressureSource: String?
    var memoryWarningPressure: Double?
    var memoryCriticalPressure: Double?
    var rssCeilingBytes: UInt64?
    var memoryPollInterval: Double?
    var loopRealtimePriority: Int?
    var loopWakeupSpin: Double?
    var controlClientLimit: Int?
    var controlQueueByteLimit: Int?
    var appLogLineLimit: Int?
    var appLogByteLimit: Int?
    var restartBackoffLimit: Double?
    var restartBackoffReset: Double?
    var crashLoopThreshold: Int?
    var restartRateLimit: Int?
    var stateDirectory: String?
    var runHistoryLimit: Int?
    var backgroundWakeBudget: Double?
    var backgroundWakeLimitPerApp: Int?
    var backgroundWakePayloadByteLimit: Int?
    var refreshMinimumInterval: Double?
    var appUserName: String?
    var appGroupName: String?
    var stateRestorationByteLimit: Int?
    var stateRestorationCrashWindow: Double?
    var stateRestorationWriteInterval: Double?

    enum CodingKeys: String, CodingKey {
        case backgroundTimeBudget = "BackgroundTimeBudget"
        case expirationWarningLead = "ExpirationWarningLead"
        case backgroundEntryGrace = "BackgroundEntryGrace"
        case terminationGrace = "TerminationGrace"
        case overrunPolicy = "OverrunPolicy"
        case overrunSignalLead = "OverrunSignalLead"
        case suspensionMechanism = "SuspensionMechanism"
        case exitsOnSuspendStyle = "ExitsOnSuspendStyle"
        case lockBehavior = "LockBehavior"
        case budgetRefillPolicy = "BudgetRefillPolicy"
        case notificationQueueLimit = "NotificationQueueLimit"
        case taskLimitPerApp = "TaskLimitPerApp"
        case taskNameByteLimit = "TaskNameByteLimit"
        case controlSocket = "ControlSocket"
        case memoryPressureSource = "MemoryPressureSource"
        case memoryWarningPressure = "MemoryWarningPressure"
        case memoryCriticalPressure = "MemoryCriticalPressure"
        case rssCeilingBytes = "RSSCeilingBytes"
        case memoryPollInterval = "MemoryPollInterval"
        case loopRealtimePriority = "LoopRealtimePriority"
        case loopWakeupSpin = "LoopWakeupSpin"
        case controlClientLimit = "ControlClientLimit"
        case controlQueueByteLimit = "ControlQueueByteLimit"
        case appLogLineLimit = "AppLogLineLimit"
        case appLogByteLimit = "AppLogByteLimit"
        case restartBackoffLimit = "RestartBackoffLimit"
        case restartBackoffReset = "RestartBackoffReset"
        case crashLoopThreshold = "CrashLoopThreshold"
        case restartRateLimit = "RestartRateLimit"
        case stateDirectory = "StateDirectory"
        case runHistoryLimit = "RunHistoryLimit"
        case backgroundWakeBudget = "BackgroundWakeBudget"
        case backgroundWakeLimitPerApp = "BackgroundWakeLimitPerApp"
        case backgroundWakePayloadByteLimit = "BackgroundWakePayloadByteLimit"
        case refreshMinimumInterval = "RefreshMinimumInterval"
        case appUserName = "AppUserName"
        case appGroupName = "AppGroupName"
        case stateRestorationByteLimit = "StateRestorationByteLimit"
        case stateRestorationCrashWindow = "StateRestorationCrashWindow"
        case stateRestorationWriteInterval = "StateRestorationWriteInterval"
    }

    /// Bounds the notification queue (N1) from above as well: every queue has a limit, and so does the limit.
    static let notificationQueueLimitMaximum = 65_536
    /// The task limits' own bounds: at the maxima one app may hold 100,000 names of 4 KiB (about 400 MiB), so
    /// a larger value would no longer bound anything an operator could want.
    static let taskLimitPerAppMaximum = 100_000
    static let taskNameByteLimitMaximum = 4_096
    /// The wake-up limits' own bounds (W5): 1,024 outstanding wake-ups per app; a payload of 8 KiB still fits the
    /// app protocol's 64 KiB line when JSON escapes every byte six-fold.
    static let backgroundWakeLimitPerAppMaximum = 1_024
    static let backgroundWakePayloadByteLimitMaximum = 8_192

    static let schema = PlistSchema(
        fileKind: "Runway.plist",
        specs: [
            Key.backgroundTimeBudget, Key.expirationWarningLead, Key.backgroundEntryGrace, Key.terminationGrace,
            Key.overrunPolicy, Key.overrunSignalLead, Key.suspensionMechanism, Key.exitsOnSuspendStyle,
            Key.lockBehavior, Key.budgetRefillPolicy, Key.notificationQueueLimit, Key.taskLimitPerApp,
            Key.taskNameByteLimit,
            Key.controlSocket, Key.memoryPressureSource, Key.memoryWarningPressure,
            Key.memoryCriticalPressure, Key.rssCeilingBytes, Key.memoryPollInterval, Key.loopRealtimePriority,
            Key.loopWakeupSpin, Key.controlClientLimit, Key.controlQueueByteLimit,
            Key.appLogLineLimit, Key.appLogByteLimit,
            Key.backgroundWakeBudget, Key.backgroundWakeLimitPerApp, Key.backgroundWakePayloadByteLimit,
            Key.refreshMinimumInterval,
        ] + OperationsPlist.specs + Key.restart + Key.appUser + Key.restoration,
        hints: [
            "RunwayBackgroundTimeBudget": "the scheduler-wide key is BackgroundTimeBudget",
            "LockStyle": "the key is LockBehavior",
            "RunwayBackgroundWakeBudget": "the scheduler-wide key is BackgroundWakeBudget",
        ]
    )

    /// What one `Runway.plist` yields.
    struct Loaded {
        var settings: SchedulerSettings
        var daemon: DaemonSettings
        var warnings: [ConfigWarning]
    }

    /// Decodes and validates `file` as `Runway.plist`.
    ///
    /// - Throws: The first problem, checking keys in the order of ``CodingKeys``.
    static func load(_ file: PlistFile) throws(ConfigError) -> Loaded {
        let (plist, keys) = try file.decodeWithKeys(RunwaySettingsPlist.self, schema: Self.schema)
        var warnings = file.unknownKeyWarnings(keys, schema: Self.schema, otherSchema: AppInfoPlist.schema)
        let defaults = SchedulerSettings()

        let backgroundTimeBudget = try file.seconds(plist.backgroundTimeBudget, key: Key.backgroundTimeBudget)
        let expirationWarningLead = try file.seconds(plist.expirationWarningLead, key: Key.expirationWarningLead)
        let backgroundEntryGrace = try file.seconds(plist.backgroundEntryGrace, key: Key.backgroundEntryGrace)
        let terminationGrace = try file.seconds(plist.terminationGrace, key: Key.terminationGrace)
        let overrunPolicy = try file.choice(plist.overrunPolicy, key: Key.overrunPolicy, as: OverrunPolicy.self)
        let overrunSignalLead = try Self.overrunSignalLead(
            plist,
            budget: backgroundTimeBudget ?? defaults.backgroundTimeBudget,
            file: file
        )
        let suspensionMechanism = try file.choice(
            plist.suspensionMechanism,
            key: Key.suspensionMechanism,
            as: SuspensionMechanism.self
        )
        let exitsOnSuspendStyle = try file.choice(
            plist.exitsOnSuspendStyle,
            key: Key.exitsOnSuspendStyle,
            as: ExitsOnSuspendStyle.self
        )
        let lockBehavior = try file.choice(plist.lockBehavior, key: Key.lockBehavior, as: LockBehavior.self)
        let budgetRefillPolicy = try file.choice(
            plist.budgetRefillPolicy,
            key: Key.budgetRefillPolicy,
            as: BudgetRefillPolicy.self
        )
        if let limit = plist.notificationQueueLimit, !(1...Self.notificationQueueLimitMaximum).contains(limit) {
            throw file.error(at: .key(Key.notificationQueueLimit.name), expected: Key.notificationQueueLimit.expected)
        }
        if let limit = plist.taskLimitPerApp, !(1...Self.taskLimitPerAppMaximum).contains(limit) {
            throw file.error(at: .key(Key.taskLimitPerApp.name), expected: Key.taskLimitPerApp.expected)
        }
        if let limit = plist.taskNameByteLimit, !(1...Self.taskNameByteLimitMaximum).contains(limit) {
            throw file.error(at: .key(Key.taskNameByteLimit.name), expected: Key.taskNameByteLimit.expected)
        }
        let wake = try Self.wakeSettings(plist, file: file)
        var settings = SchedulerSettings(
            backgroundTimeBudget: backgroundTimeBudget ?? defaults.backgroundTimeBudget,
            expirationWarningLead: expirationWarningLead ?? defaults.expirationWarningLead,
            backgroundEntryGrace: backgroundEntryGrace ?? defaults.backgroundEntryGrace,
            terminationGrace: terminationGrace ?? defaults.terminationGrace,
            overrunPolicy: overrunPolicy ?? defaults.overrunPolicy,
            exitsOnSuspendStyle: exitsOnSuspendStyle ?? defaults.exitsOnSuspendStyle,
            budgetRefillPolicy: budgetRefillPolicy ?? defaults.budgetRefillPolicy,
            notificationQueueLimit: plist.notificationQueueLimit ?? defaults.notificationQueueLimit,
            lockBehavior: lockBehavior ?? defaults.lockBehavior,
            taskLimitPerApp: plist.taskLimitPerApp ?? defaults.taskLimitPerApp,
            taskNameByteLimit: plist.taskNameByteLimit ?? defaults.taskNameByteLimit,
            backgroundWakeBudget: wake.budget ?? defaults.backgroundWakeBudget,
            backgroundWakeLimitPerApp: wake.limit ?? defaults.backgroundWakeLimitPerApp,
            backgroundWakePayloadByteLimit: wake.payload ?? defaults.backgroundWakePayloadByteLimit
        )

        settings.overrunSignalLead = overrunSignalLead ?? defaults.overrunSignalLead

        var daemon = try Self.daemonSettings(plist, file: file, warnings: &warnings)
        // Checked above, in key order, but a setting of the daemon's process options, not of the core.
        daemon.suspensionMechanism = suspensionMechanism ?? daemon.suspensionMechanism
        daemon.operations = try OperationsPlist.load(file)
        try Self.applyRestartKeys(plist, settings: &settings, daemon: &daemon, file: file)
        try Self.applyRestorationKeys(plist, settings: &settings, daemon: &daemon, file: file)
        if let interval = try file.seconds(plist.refreshMinimumInterval, key: Key.refreshMinimumInterval) {
            settings.refreshMinimumInterval = interval
        }
        return Loaded(settings: settings, daemon: daemon, warnings: warnings.sortedByKeyPath())
    }

    /// `OverrunSignalLead` (B11): seconds from 0 to the scheduler's `BackgroundTimeBudget`, since a notice before
    /// the background entry could not be sent.
    private static func overrunSignalLead(
        _ plist: RunwaySettingsPlist,
        budget: TimeSpan,
        file: PlistFile
    ) throws(ConfigError) -> TimeSpan? {
        guard let lead = try file.seconds(plist.overrunSignalLead, key: Key.overrunSignalLead) else { return nil }
        guard lead <= budget else {
            throw file.error(
                at: .key(Key.overrunSignalLead.name),
                expected: "a number of seconds from 0 to BackgroundTimeBudget (\(budget.seconds))"
            )
        }
        return lead
    }

    /// `BackgroundWakeBudget`, `BackgroundWakeLimitPerApp`, `BackgroundWakePayloadByteLimit` (W2, W5), checked.
    private static func wakeSettings(
        _ plist: RunwaySettingsPlist,
        file: PlistFile
    ) throws(ConfigError) -> (budget: TimeSpan?, limit: Int?, payload: Int?) {
        let budget = try file.seconds(plist.backgroundWakeBudget, key: Key.backgroundWakeBudget)
        if let limit = plist.backgroundWakeLimitPerApp, !(1...Self.backgroundWakeLimitPerAppMaximum).contains(limit) {
            throw file.error(
                at: .key(Key.backgroundWakeLimitPerApp.name),
                expected: Key.backgroundWakeLimitPerApp.expected
            )
        }
        if let limit = plist.backgroundWakePayloadByteLimit,
            !(1...Self.backgroundWakePayloadByteLimitMaximum).contains(limit)
        {
            throw file.error(
                at: .key(Key.backgroundWakePayloadByteLimit.name),
                expected: Key.backgroundWakePayloadByteLimit.expected
            )
        }
        return (budget, plist.backgroundWakeLimitPerApp, plist.backgroundWakePayloadByteLimit)
    }
}
