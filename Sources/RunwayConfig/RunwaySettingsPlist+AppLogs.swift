// The `Runway.plist` keys that bound the daemon's memory of process apps' output (`runway logs`):
// `AppLogLineLimit` and `AppLogByteLimit`, per run of each app (the current run and the previous one are kept).

extension DaemonSettings {
    package static let defaultAppLogLineLimit = 1_000
    package static let defaultAppLogByteLimit = 262_144
    /// Bounds of `AppLogLineLimit`.
    package static let appLogLineLimits = 1...1_000_000
    /// Bounds of `AppLogByteLimit`: 64 KiB (more than the longest output line, 16 KiB) to 256 MiB.
    package static let appLogByteLimits = 65_536...(256 << 20)
}

extension RunwaySettingsPlist.Key {
    static let appLogLineLimit = PlistKeySpec(
        RunwaySettingsPlist.CodingKeys.appLogLineLimit,
        expected: "an integer number of lines from \(DaemonSettings.appLogLineLimits.lowerBound) to "
            + "\(DaemonSettings.appLogLineLimits.upperBound)"
    )
    static let appLogByteLimit = PlistKeySpec(
        RunwaySettingsPlist.CodingKeys.appLogByteLimit,
        expected: "an integer number of bytes from \(DaemonSettings.appLogByteLimits.lowerBound) to "
            + "\(DaemonSettings.appLogByteLimits.upperBound)"
    )
}

extension RunwaySettingsPlist {
    /// Validates `AppLogLineLimit` and `AppLogByteLimit` and stores them (defaults when absent).
    static func readAppLogLimits(
        _ plist: RunwaySettingsPlist,
        file: PlistFile,
        into settings: inout DaemonSettings
    ) throws(ConfigError) {
        if let limit = plist.appLogLineLimit {
            guard DaemonSettings.appLogLineLimits.contains(limit) else {
                throw file.error(at: .key(Key.appLogLineLimit.name), expected: Key.appLogLineLimit.expected)
            }
            settings.appLogLineLimit = limit
        }
        if let limit = plist.appLogByteLimit {
            guard DaemonSettings.appLogByteLimits.contains(limit) else {
                throw file.error(at: .key(Key.appLogByteLimit.name), expected: Key.appLogByteLimit.expected)
            }
            settings.appLogByteLimit = limit
        }
    }
}
