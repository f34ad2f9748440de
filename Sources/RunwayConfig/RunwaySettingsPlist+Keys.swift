@_spi(Processes) @_spi(Benchmarks) import RunwayCore
@_spi(Benchmarks) import RunwayLoop
@_spi(Processes) import RunwayProcesses

// The keys of `Runway.plist`: each with the words its errors use for what was expected.

extension RunwaySettingsPlist {
    enum Key {
        static let backgroundTimeBudget = PlistKeySpec(CodingKeys.backgroundTimeBudget, expected: Expected.seconds)
        static let expirationWarningLead = PlistKeySpec(CodingKeys.expirationWarningLead, expected: Expected.seconds)
        static let backgroundEntryGrace = PlistKeySpec(CodingKeys.backgroundEntryGrace, expected: Expected.seconds)
        static let terminationGrace = PlistKeySpec(CodingKeys.terminationGrace, expected: Expected.seconds)
        static let overrunPolicy = PlistKeySpec(CodingKeys.overrunPolicy, expected: Expected.oneOf(OverrunPolicy.self))
        static let overrunSignalLead = PlistKeySpec(
            CodingKeys.overrunSignalLead,
            expected: "a number of seconds from 0 to BackgroundTimeBudget"
        )
        static let suspensionMechanism = PlistKeySpec(
            CodingKeys.suspensionMechanism,
            expected: Expected.oneOf(SuspensionMechanism.self)
        )
        static let exitsOnSuspendStyle = PlistKeySpec(
            CodingKeys.exitsOnSuspendStyle,
            expected: Expected.oneOf(ExitsOnSuspendStyle.self)
        )
        static let lockBehavior = PlistKeySpec(CodingKeys.lockBehavior, expected: Expected.oneOf(LockBehavior.self))
        static let budgetRefillPolicy = PlistKeySpec(
            CodingKeys.budgetRefillPolicy,
            expected: Expected.oneOf(BudgetRefillPolicy.self)
        )
        static let notificationQueueLimit = PlistKeySpec(
            CodingKeys.notificationQueueLimit,
            expected: "an integer from 1 to \(RunwaySettingsPlist.notificationQueueLimitMaximum)"
        )
        static let taskLimitPerApp = PlistKeySpec(
            CodingKeys.taskLimitPerApp,
            expected: "an integer from 1 to \(RunwaySettingsPlist.taskLimitPerAppMaximum)"
        )
        static let taskNameByteLimit = PlistKeySpec(
            CodingKeys.taskNameByteLimit,
            expected: "an integer number of bytes from 1 to \(RunwaySettingsPlist.taskNameByteLimitMaximum)"
        )
        static let controlSocket = PlistKeySpec(
            CodingKeys.controlSocket,
            expected: "an absolute path of at most \(DaemonSettings.controlSocketPathMaximumBytes) bytes"
        )
        static let memoryPressureSource = PlistKeySpec(
            CodingKeys.memoryPressureSource,
            expected: Expected.oneOf(MemoryPressureSource.self)
        )
        static let memoryWarningPressure = PlistKeySpec(CodingKeys.memoryWarningPressure, expected: Expected.percentage)
        static let memoryCriticalPressure = PlistKeySpec(
            CodingKeys.memoryCriticalPressure,
            expected: "a percentage from MemoryWarningPressure to 100 (real or integer)"
        )
        static let rssCeilingBytes = PlistKeySpec(
            CodingKeys.rssCeilingBytes,
            expected: "a positive integer number of bytes"
        )
        static let memoryPollInterval = PlistKeySpec(CodingKeys.memoryPollInterval, expected: Expected.positiveSeconds)
        static let loopRealtimePriority = PlistKeySpec(
            CodingKeys.loopRealtimePriority,
            expected: "an integer from \(LoopLimits.realtimePriorities.lowerBound) to "
                + "\(LoopLimits.realtimePriorities.upperBound) (a SCHED_FIFO priority)"
        )
        static let loopWakeupSpin = PlistKeySpec(
            CodingKeys.loopWakeupSpin,
            expected: "a number of seconds from 0 to \(LoopLimits.maximumWakeupSpin.seconds) (real or integer)"
        )
        static let controlClientLimit = PlistKeySpec(
            CodingKeys.controlClientLimit,
            expected: "an integer from \(DaemonSettings.controlClientLimits.lowerBound) to "
                + "\(DaemonSettings.controlClientLimits.upperBound)"
        )
        static let controlQueueByteLimit = PlistKeySpec(
            CodingKeys.controlQueueByteLimit,
            expected: "an integer number of bytes from \(DaemonSettings.controlQueueByteLimits.lowerBound) to "
                + "\(DaemonSettings.controlQueueByteLimits.upperBound)"
        )
        static let backgroundWakeBudget = PlistKeySpec(CodingKeys.backgroundWakeBudget, expected: Expected.seconds)
        static let refreshMinimumInterval = PlistKeySpec(CodingKeys.refreshMinimumInterval, expected: Expected.seconds)
        static let backgroundWakeLimitPerApp = PlistKeySpec(
            CodingKeys.backgroundWakeLimitPerApp,
            expected: "an integer from 1 to \(RunwaySettingsPlist.backgroundWakeLimitPerAppMaximum)"
        )
        static let backgroundWakePayloadByteLimit = PlistKeySpec(
            CodingKeys.backgroundWakePayloadByteLimit,
            expected: "an integer number of bytes from 1 to "
                + "\(RunwaySettingsPlist.backgroundWakePayloadByteLimitMaximum)"
        )
    }
}
