#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A child's start time (`/proc/PID/stat` field 22: clock ticks of `CLOCK_BOOTTIME` when the kernel made the
/// process) known without reading `/proc`: the kernel stamps the process inside the clone, so its stamp lies between
/// a reading of `CLOCK_BOOTTIME` just before the spawn and one just after it; when both fall in the same clock tick,
/// that tick is the start time. A tick boundary inside the spawn (about one launch in 20 at 100 ticks a second and a
/// spawn of half a millisecond) leaves it unknown, and the caller reads `/proc/PID/stat` instead. Both readings and
/// the kernel's figure are in this process's time namespace. Any thread.
struct BootClockStartTime {
    /// Nanoseconds of `CLOCK_BOOTTIME` per clock tick (`sysconf(_SC_CLK_TCK)`); nil when a tick is not a whole number
    /// of nanoseconds, or `CLOCK_BOOTTIME` cannot be read.
    static let nanosecondsPerTick: UInt64? = {
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        guard ticks > 0, 1_000_000_000 % ticks == 0, Self.now() != nil else { return nil }
        return UInt64(1_000_000_000 / ticks)
    }()

    /// `CLOCK_BOOTTIME` in nanoseconds, or nil.
    static func now() -> UInt64? {
        var time = timespec()
        guard clock_gettime(CLOCK_BOOTTIME, &time) == 0 else { return nil }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private let before: UInt64?

    /// Reads the clock before the spawn.
    init() {
        self.before = Self.nanosecondsPerTick == nil ? nil : Self.now()
    }

    /// The start time of a process made since `init`, read now, after its spawn returned: the tick both readings fall
    /// in, or nil when they straddle a tick boundary.
    func startTicks() -> UInt64? {
        Self.ticks(before: self.before, after: Self.now(), nanosecondsPerTick: Self.nanosecondsPerTick)
    }

    /// The tick of `before` when `after` falls in the same one, else nil. Pure.
    static func ticks(before: UInt64?, after: UInt64?, nanosecondsPerTick: UInt64?) -> UInt64? {
        guard let before, let after, let tick = nanosecondsPerTick, tick > 0, after >= before else { return nil }
        let first = before / tick
        return after / tick == first ? first : nil
    }
}
