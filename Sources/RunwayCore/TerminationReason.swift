/// Why an app stopped running, recorded on the transition to `notRunning`.
public enum TerminationReason: Hashable, Sendable, CustomStringConvertible {
    /// The `terminate` command (operator, user action S9).
    case requested
    /// The scheduler is stopping (P4).
    case shutdown
    /// `didEnterBackground` did not return within `BackgroundEntryGrace` and no task was held (L3).
    case backgroundEntryTimeout
    /// The budget deadline passed with tasks outstanding and `OverrunPolicy.terminate` (B6, S12).
    case budgetOverrun
    /// A `UIApplicationExitsOnSuspend` app reached a point where it would be suspended (E1).
    case exitsOnSuspend
    /// Purged under memory pressure (P3, S14).
    case memoryPressure
    /// A process app sent malformed or flooding protocol traffic (A5).
    case protocolViolation
    /// A process app could not be started.
    case spawnFailed(String)
    /// A process app exited on its own with this status (L6).
    case exited(Int32)
    /// A process app was ended by this signal without the scheduler asking (L6).
    case signaled(Int32)

    /// The reason's name as in logs, status and event lines: `budgetOverrun`, `exited(0)`, `signaled(9)`, ...
    public var description: String {
        switch self {
        case .requested: return "requested"
        case .shutdown: return "shutdown"
        case .backgroundEntryTimeout: return "backgroundEntryTimeout"
        case .budgetOverrun: return "budgetOverrun"
        case .exitsOnSuspend: return "exitsOnSuspend"
        case .memoryPressure: return "memoryPressure"
        case .protocolViolation: return "protocolViolation"
        case .spawnFailed(let error): return "spawnFailed(\(error))"
        case .exited(let status): return "exited(\(status))"
        case .signaled(let signal): return "signaled(\(signal))"
        }
    }
}

/// How a process app ended, as the driver observed it.
public enum ProcessExit: Hashable, Sendable, CustomStringConvertible {
    /// The process exited with this status.
    case exited(Int32)
    /// The process was ended by this signal.
    case signaled(Int32)

    /// `exited(<status>)` or `signaled(<signal>)`.
    public var description: String {
        switch self {
        case .exited(let status): return "exited(\(status))"
        case .signaled(let signal): return "signaled(\(signal))"
        }
    }
}
