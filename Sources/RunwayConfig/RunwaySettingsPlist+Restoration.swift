import RunwayCore

// The state restoration keys of `Runway.plist` (Docs/Configuration.md, Behaviour.md section 10):
// `StateRestorationByteLimit` and `StateRestorationWriteInterval` (the daemon's store) and
// `StateRestorationCrashWindow` (the core's R4).

extension RunwaySettingsPlist {
    /// Reads the keys into `settings` and `daemon`; absent keys keep the defaults.
    static func applyRestorationKeys(
        _ plist: RunwaySettingsPlist,
        settings: inout SchedulerSettings,
        daemon: inout DaemonSettings,
        file: PlistFile
    ) throws(ConfigError) {
        if let limit = plist.stateRestorationByteLimit {
            guard DaemonSettings.stateRestorationByteLimits.contains(limit) else {
                throw file.error(
                    at: .key(Key.stateRestorationByteLimit.name),
                    expected: Key.stateRestorationByteLimit.expected
                )
            }
            daemon.stateRestorationByteLimit = limit
        }
        if let window = try file.seconds(plist.stateRestorationCrashWindow, key: Key.stateRestorationCrashWindow) {
            settings.stateRestorationCrashWindow = window
        }
        if let interval = plist.stateRestorationWriteInterval {
            guard DaemonSettings.stateRestorationWriteIntervals.contains(interval) else {
                throw file.error(
                    at: .key(Key.stateRestorationWriteInterval.name),
                    expected: Key.stateRestorationWriteInterval.expected
                )
            }
            daemon.stateRestorationWriteInterval = .milliseconds(Int64((interval * 1_000).rounded(.up)))
        }
    }
}

extension RunwaySettingsPlist.Key {
    static let stateRestorationByteLimit = PlistKeySpec(
        RunwaySettingsPlist.CodingKeys.stateRestorationByteLimit,
        expected: "an integer from \(DaemonSettings.stateRestorationByteLimits.lowerBound) to "
            + "\(DaemonSettings.stateRestorationByteLimits.upperBound) (bytes of one app's preserved state)"
    )
    static let stateRestorationCrashWindow = PlistKeySpec(
        RunwaySettingsPlist.CodingKeys.stateRestorationCrashWindow,
        expected: Expected.seconds
    )
    static let stateRestorationWriteInterval = PlistKeySpec(
        RunwaySettingsPlist.CodingKeys.stateRestorationWriteInterval,
        expected: "a number of seconds from 0 to 3600 (the least time between two writes of one app's state)"
    )
    static let restoration = [stateRestorationByteLimit, stateRestorationCrashWindow, stateRestorationWriteInterval]
}
