@_spi(Benchmarks) import RunwayCore
@_spi(Benchmarks) import RunwayLoop

extension RunwaySettingsPlist {
    /// The daemon's keys of `Runway.plist` (memory pressure, the loop, the control socket's limits, the apps' logs
    /// and user), checked, as `DaemonSettings`; the ignored `RSSCeilingBytes` warns in `warnings`.
    static func daemonSettings(
        _ plist: RunwaySettingsPlist,
        file: PlistFile,
        warnings: inout [ConfigWarning]
    ) throws(ConfigError) -> DaemonSettings {
        let controlSocketPath = try file.absolutePath(
            plist.controlSocket,
            key: Key.controlSocket,
            maximumBytes: DaemonSettings.controlSocketPathMaximumBytes
        )
        let source =
            try file.choice(
                plist.memoryPressureSource,
                key: Key.memoryPressureSource,
                as: MemoryPressureSource.self
            ) ?? .psi
        let warning = try file.percentage(plist.memoryWarningPressure, key: Key.memoryWarningPressure) ?? 10
        let criticalExpected = "a percentage from MemoryWarningPressure (\(warning)) to 100 (real or integer)"
        let critical =
            try file.percentage(
                plist.memoryCriticalPressure,
                key: Key.memoryCriticalPressure,
                atLeast: warning,
                expected: criticalExpected
            ) ?? 30
        if critical < warning {
            // Only reachable with the default: a raised warning level needs an explicit critical level.
            throw ConfigError(
                code: .missingValue,
                file: file.path,
                keyPath: Key.memoryCriticalPressure.name,
                found: "nothing (the default 30 is below MemoryWarningPressure)",
                expected: criticalExpected
            )
        }
        if plist.rssCeilingBytes == 0 {
            throw file.error(at: .key(Key.rssCeilingBytes.name), expected: Key.rssCeilingBytes.expected)
        }
        switch (source, plist.rssCeilingBytes) {
        case (.rss, nil):
            throw file.error(
                code: .missingValue,
                at: .key(Key.rssCeilingBytes.name),
                expected: Key.rssCeilingBytes.expected + " (required when MemoryPressureSource is \"rss\")"
            )
        case (.psi, _?), (.off, _?):
            warnings.append(
                file.warning(
                    at: .key(Key.rssCeilingBytes.name),
                    "ignored: MemoryPressureSource is \(quotedPlistString(source.rawValue)), not \"rss\""
                )
            )
        case (.rss, _?), (.psi, nil), (.off, nil):
            break
        }
        let pollInterval = try file.seconds(plist.memoryPollInterval, key: Key.memoryPollInterval, positive: true)
        if let priority = plist.loopRealtimePriority, !LoopLimits.realtimePriorities.contains(Int32(clamping: priority))
        {
            throw file.error(at: .key(Key.loopRealtimePriority.name), expected: Key.loopRealtimePriority.expected)
        }
        let wakeupSpin = try file.seconds(plist.loopWakeupSpin, key: Key.loopWakeupSpin)
        if let wakeupSpin, wakeupSpin > LoopLimits.maximumWakeupSpin {
            throw file.error(at: .key(Key.loopWakeupSpin.name), expected: Key.loopWakeupSpin.expected)
        }
        if let limit = plist.controlClientLimit, !DaemonSettings.controlClientLimits.contains(limit) {
            throw file.error(at: .key(Key.controlClientLimit.name), expected: Key.controlClientLimit.expected)
        }
        if let limit = plist.controlQueueByteLimit, !DaemonSettings.controlQueueByteLimits.contains(limit) {
            throw file.error(at: .key(Key.controlQueueByteLimit.name), expected: Key.controlQueueByteLimit.expected)
        }
        var settings = DaemonSettings(
            controlSocketPath: controlSocketPath ?? DaemonSettings.defaultControlSocketPath(),
            memoryPressureSource: source,
            memoryWarningPressure: warning,
            memoryCriticalPressure: critical,
            rssCeilingBytes: plist.rssCeilingBytes,
            memoryPollInterval: pollInterval ?? .seconds(1),
            loopRealtimePriority: plist.loopRealtimePriority.map { Int32($0) },
            loopWakeupSpin: wakeupSpin ?? .zero,
            controlClientLimit: plist.controlClientLimit ?? DaemonSettings.defaultControlClientLimit,
            controlQueueByteLimit: plist.controlQueueByteLimit ?? DaemonSettings.defaultControlQueueByteLimit
        )
        try Self.readAppLogLimits(plist, file: file, into: &settings)
        settings.appUser = try Self.appUser(plist, file: file)
        return settings
    }
}
