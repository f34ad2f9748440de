// Time in the core is data: the core never reads a clock. Drivers read their monotonic clock once per loop
// turn and pass the reading in as an `Instant`; tests pass instants from a manual clock.

/// A point on a monotonic clock, in nanoseconds since an origin the driver chooses (for example the loop's
/// start). Instants from different origins must not be mixed.
///
/// Arithmetic saturates: adding a span to `Instant.distantFuture` stays there, and subtracting past zero
/// stays at zero. Nothing traps on overflow.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the driver's origin.
    public var nanosecondsSinceOrigin: UInt64

    /// Creates an instant `nanoseconds` after the driver's origin.
    public init(nanosecondsSinceOrigin: UInt64) {
        self.nanosecondsSinceOrigin = nanosecondsSinceOrigin
    }

    /// The driver's origin.
    public static let origin = Instant(nanosecondsSinceOrigin: 0)

    /// An instant later than any reachable reading; used for "never".
    public static let distantFuture = Instant(nanosecondsSinceOrigin: .max)

    /// Earlier instants are smaller.
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.nanosecondsSinceOrigin < rhs.nanosecondsSinceOrigin
    }

    /// Saturating: never past `distantFuture`, never before `origin`.
    public static func + (lhs: Instant, rhs: TimeSpan) -> Instant {
        if rhs.nanoseconds >= 0 {
            let (sum, overflow) = lhs.nanosecondsSinceOrigin.addingReportingOverflow(UInt64(rhs.nanoseconds))
            return Instant(nanosecondsSinceOrigin: overflow ? .max : sum)
        }
        let magnitude = rhs.nanoseconds.magnitude
        let value = lhs.nanosecondsSinceOrigin
        return Instant(nanosecondsSinceOrigin: value > magnitude ? value - magnitude : 0)
    }

    /// Saturating: never before `origin`.
    public static func - (lhs: Instant, rhs: TimeSpan) -> Instant {
        if rhs.nanoseconds == .min { return lhs + TimeSpan.max }
        return lhs + TimeSpan(nanoseconds: -rhs.nanoseconds)
    }

    /// The signed span from `rhs` to `lhs`, saturated to the range of `TimeSpan`.
    public static func - (lhs: Instant, rhs: Instant) -> TimeSpan {
        if lhs >= rhs {
            let difference = lhs.nanosecondsSinceOrigin - rhs.nanosecondsSinceOrigin
            return TimeSpan(nanoseconds: difference > UInt64(Int64.max) ? .max : Int64(difference))
        }
        let difference = rhs.nanosecondsSinceOrigin - lhs.nanosecondsSinceOrigin
        return TimeSpan(nanoseconds: difference > UInt64(Int64.max) ? -.max : -Int64(difference))
    }

    /// Seconds since the origin with millisecond digits, e.g. `t=30.000s`; `t=never` for `distantFuture`.
    public var description: String {
        if self == .distantFuture { return "t=never" }
        return "t=\(TimeSpan.formatSeconds(nanosecondsSinceOrigin))s"
    }
}

/// A signed length of time in nanoseconds. Distinct from `Instant` so the two cannot be confused.
public struct TimeSpan: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The length in nanoseconds; negative spans are allowed in arithmetic, never in configuration.
    public var nanoseconds: Int64

    /// A span of exactly `nanoseconds`.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// No time at all.
    public static let zero = TimeSpan(nanoseconds: 0)
    /// The longest span; used as "infinite" (for example `backgroundTimeRemaining` in the foreground).
    public static let max = TimeSpan(nanoseconds: .max)

    /// `value` nanoseconds: `.nanoseconds(500)`.
    public static func nanoseconds(_ value: Int64) -> TimeSpan { TimeSpan(nanoseconds: value) }
    /// `value` microseconds, saturating at `TimeSpan.max` (and its negative).
    public static func microseconds(_ value: Int64) -> TimeSpan {
        TimeSpan(nanoseconds: value.multipliedSaturating(by: 1_000))
    }
    /// `value` milliseconds, saturating at `TimeSpan.max` (and its negative).
    public static func milliseconds(_ value: Int64) -> TimeSpan {
        TimeSpan(nanoseconds: value.multipliedSaturating(by: 1_000_000))
    }
    /// `value` whole seconds, saturating at `TimeSpan.max` (and its negative).
    public static func seconds(_ value: Int64) -> TimeSpan {
        TimeSpan(nanoseconds: value.multipliedSaturating(by: 1_000_000_000))
    }

    /// Converts fractional seconds, rounding up to the next nanosecond (deadlines are never early) and
    /// saturating at `TimeSpan.max`. Returns nil for NaN or infinity.
    public static func seconds(_ value: Double) -> TimeSpan? {
        guard value.isFinite else { return nil }
        let nanoseconds = (value * 1_000_000_000).rounded(.up)
        if nanoseconds >= 9.2e18 { return .max }
        if nanoseconds <= -9.2e18 { return TimeSpan(nanoseconds: -.max) }
        return TimeSpan(nanoseconds: Int64(nanoseconds))
    }

    /// The span in seconds, as a `Double` (for display and config round trips).
    public var seconds: Double { Double(self.nanoseconds) / 1_000_000_000 }

    /// Shorter spans are smaller.
    public static func < (lhs: TimeSpan, rhs: TimeSpan) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The sum, saturating at `TimeSpan.max` (and its negative) instead of overflowing.
    public static func + (lhs: TimeSpan, rhs: TimeSpan) -> TimeSpan {
        let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds)
        if overflow { return TimeSpan(nanoseconds: rhs.nanoseconds > 0 ? .max : -.max) }
        return TimeSpan(nanoseconds: sum)
    }

    /// `3.250s`; `infinite` for `TimeSpan.max`.
    public var description: String {
        if self == .max { return "infinite" }
        let sign = self.nanoseconds < 0 ? "-" : ""
        return "\(sign)\(TimeSpan.formatSeconds(self.nanoseconds.magnitude))s"
    }

    /// Whole seconds and three decimals, truncated: 1_234_567_890 ns -> "1.234".
    static func formatSeconds(_ nanoseconds: UInt64) -> String {
        let milliseconds = nanoseconds / 1_000_000
        let fraction = String(milliseconds % 1_000)
        return "\(milliseconds / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}

extension Int64 {
    fileprivate func multipliedSaturating(by factor: Int64) -> Int64 {
        let (product, overflow) = self.multipliedReportingOverflow(by: factor)
        if overflow { return (self < 0) != (factor < 0) ? -.max : .max }
        return product
    }
}
