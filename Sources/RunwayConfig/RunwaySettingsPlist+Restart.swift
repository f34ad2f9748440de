import RunwayCore

// The restart, history and state keys of `Runway.plist` (Docs/Configuration.md): `RestartBackoffLimit`,
// `RestartBackoffReset`, `CrashLoopThreshold`, `RestartRateLimit` (the core's KeepAlive policy), `StateDirectory` and
// `RunHistoryLimit` (the daemon's).

extension RunwaySettingsPlist {
    /// Bounds of `CrashLoopThreshold`.
    static let crashLoopThresholds = 1...1_000
    /// Bounds of `RestartRateLimit` (restarts a second, over every app).
    static let restartRateLimits = 1...1_000

    /// Reads the keys into `settings` and `daemon`; absent keys keep the defaults.
    static func applyRestartKeys(
        _ plist: RunwaySettingsPlist,
        settings: inout SchedulerSettings,
        daemon: inout DaemonSettings,
        file: PlistFile
    ) throws(ConfigError) {
        if let limit = try file.seconds(plist.restartBackoffLimit, key: Key.restartBackoffLimit, positive: true) {
            guard limit >= RestartPolicy.minimumRestartWait else {
                throw file.error(at: .key(Key.restartBackoffLimit.name), expected: Key.restartBackoffLimit.expected)
            }
            settings.restartBackoffLimit = limit
        }
        if let reset = try file.seconds(plist.restartBackoffReset, key: Key.restartBackoffReset) {
            settings.restartBackoffReset = reset
        }
        if let threshold = plist.crashLoopThreshold {
            guard Self.crashLoopThresholds.contains(threshold) else {
                throw file.error(at: .key(Key.crashLoopThreshold.name), expected: Key.crashLoopThreshold.expected)
            }
            settings.crashLoopThreshold = threshold
        }
        if let rate = plist.restartRateLimit {
            guard Self.restartRateLimits.contains(rate) else {
                throw file.error(at: .key(Key.restartRateLimit.name), expected: Key.restartRateLimit.expected)
            }
            settings.restartSpacing = .nanoseconds(1_000_000_000 / Int64(rate))
        }
        daemon.stateDirectory = try file.absolutePath(plist.stateDirectory, key: Key.stateDirectory)
        if let limit = plist.runHistoryLimit {
            guard DaemonSettings.runHistoryLimits.contains(limit) else {
                throw file.error(at: .key(Key.runHistoryLimit.name), expected: Key.runHistoryLimit.expected)
            }
            daemon.runHistoryLimit = limit
        }
    }
}

extension RunwaySettingsPlist.Key {
    static let restartBackoffLimit = PlistKeySpec(
        RunwaySettingsPlist.CodingKeys.restartBackoffLimit,
        expected: Expected.restartWait
    )
    static let restartBackoffReset = PlistKeySpec(
        RunwaySettingsPlist.CodingKeys.restartBackoffReset,
        expected: Expected.seconds
    )
    static let crashLoopThreshold = PlistKeySpec(
        RunwaySettingsPlist.CodingKeys.crashLoopThreshold,
        expected: "an integer from \(RunwaySettingsPlist.crashLoopThresholds.lowerBound) to "
            + "\(RunwaySettingsPlist.crashLoopThresholds.upperBound) (consecutive failures)"
    )
    static let restartRateLimit = PlistKeySpec(
        RunwaySettingsPlist.CodingKeys.restartRateLimit,
        expected: "an integer from \(RunwaySettingsPlist.restartRateLimits.lowerBound) to "
            + "\(RunwaySettingsPlist.restartRateLimits.upperBound) (restarts a second, over every app)"
    )
    static let stateDirectory = PlistKeySpec(
        RunwaySettingsPlist.CodingKeys.stateDirectory,
        expected: "an absolute path (a string starting with \"/\")"
    )
    static let runHistoryLimit = PlistKeySpec(
        RunwaySettingsPlist.CodingKeys.runHistoryLimit,
        expected: "an integer from \(DaemonSettings.runHistoryLimits.lowerBound) to "
            + "\(DaemonSettings.runHistoryLimits.upperBound) (runs kept per app)"
    )
    static let restart = [
        restartBackoffLimit, restartBackoffReset, crashLoopThreshold, restartRateLimit, stateDirectory,
        runHistoryLimit,
    ]
}
