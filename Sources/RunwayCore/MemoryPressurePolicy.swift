/// How hard the system is pressed for memory (P3), as the core classifies a sample.
public enum MemoryPressureLevel: Int, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Below the warning threshold: nothing to do.
    case normal
    /// At or above the warning threshold: running apps are sent `didReceiveMemoryWarning`, once per rise.
    case warning
    /// At or above the critical threshold: one app is purged per sample, in the order of P8.
    case critical

    /// Orders by severity: `normal < warning < critical`.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `normal`, `warning` or `critical`.
    public var description: String {
        switch self {
        case .normal: return "normal"
        case .warning: return "warning"
        case .critical: return "critical"
        }
    }
}

/// One reading of memory pressure, taken by the driver (P3). The driver only reads; the core decides.
@_spi(Driver)
public enum MemoryPressureSample: Hashable, Sendable, CustomStringConvertible {
    /// A PSI file's `some avg10` value, in percent (`/proc/pressure/memory` or a cgroup's `memory.pressure`).
    case psi(percent: Double)
    /// The summed resident set of the process apps, in bytes, against the configured ceiling in bytes.
    case resident(bytes: UInt64, ceilingBytes: UInt64)
    /// The source could not be read or parsed: the level stays as it was and nothing is done.
    case unreadable

    /// The reading for logs: `psi(12.5%)`, `resident(<bytes> of <ceiling> bytes)` or `unreadable`.
    public var description: String {
        switch self {
        case .psi(let percent): return "psi(\(percent)%)"
        case .resident(let bytes, let ceiling): return "resident(\(bytes) of \(ceiling) bytes)"
        case .unreadable: return "unreadable"
        }
    }
}

/// The P3 thresholds: at which pressure running apps are warned and apps are purged (in P8's order).
///
/// A value type with no clock and no I/O; it lives in `SchedulerSettings.memoryPressure` and is read by the
/// scheduler when the driver reports a sample (`Scheduler.memoryPressureSampled(_:now:)`). `Runway.plist`
/// keys: `MemoryWarningPressure`, `MemoryCriticalPressure` (the daemon copies them here).
public struct MemoryPressurePolicy: Hashable, Sendable {
    /// Fraction of an RSS ceiling at or above which pressure is at the warning level: 90 %.
    public static let residentWarningFraction = 0.9
    /// Fraction of an RSS ceiling at or above which pressure is critical: 100 %, the ceiling itself.
    public static let residentCriticalFraction = 1.0

    /// PSI `some avg10` percentage at or above which running apps get `didReceiveMemoryWarning`. Default 10.
    public var warningPercent: Double
    /// PSI percentage at or above which apps are purged, one per sample, in the order of P8.
    /// Default 30; never below `warningPercent`.
    public var criticalPercent: Double

    /// Creates the thresholds. `warningPercent` must not exceed `criticalPercent` (a precondition).
    public init(warningPercent: Double = 10, criticalPercent: Double = 30) {
        precondition(warningPercent <= criticalPercent, "warningPercent must not exceed criticalPercent")
        self.warningPercent = warningPercent
        self.criticalPercent = criticalPercent
    }

    /// The level of one sample, or nil for an unreadable one (which leaves the level unchanged).
    ///
    /// PSI: critical at or above `criticalPercent`, warning at or above `warningPercent`. RSS: critical at or
    /// above the ceiling, warning at or above 90 % of it. Pure; no clock.
    @_spi(Driver) public func level(of sample: MemoryPressureSample) -> MemoryPressureLevel? {
        switch sample {
        case .psi(let percent):
            if percent >= self.criticalPercent { return .critical }
            if percent >= self.warningPercent { return .warning }
            return .normal
        case .resident(let bytes, let ceilingBytes):
            let used = Double(bytes)
            let ceiling = Double(ceilingBytes)
            if used >= Self.residentCriticalFraction * ceiling { return .critical }
            if used >= Self.residentWarningFraction * ceiling { return .warning }
            return .normal
        case .unreadable:
            return nil
        }
    }
}
