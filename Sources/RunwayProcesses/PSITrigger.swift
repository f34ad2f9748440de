import CRunwayProcess
@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A PSI trigger (the kernel's Documentation/accounting/psi.rst, "Monitoring for pressure thresholds"): an open
/// PSI file on which `some <stall µs> <window µs>` was written. The kernel then marks the descriptor `POLLPRI` when
/// the tasks stalled on memory for at least the stall within any window, at most once per window, and the
/// memory-pressure monitor reads the file only then (`MemoryPressureMonitor`), instead of on a timer.
///
/// The window is 2 s: the kernel accepts 0.5 ... 10 s, and an unprivileged process only whole multiples of 2 s.
/// The stall is half the warning threshold's share of the window (a 10 % warning: 100 ms in 2 s), at least 1 µs:
/// the `avg10` the core compares is an average of 2 s periods, so it cannot reach the threshold without a window
/// stalling at least that share, and the half is a margin for windows that straddle two periods.
struct PSITrigger: Hashable, Sendable {
    /// The trigger's window: 2 s.
    static let windowMicroseconds: UInt64 = 2_000_000
    /// `PROC_SUPER_MAGIC` and `CGROUP2_SUPER_MAGIC` (linux/magic.h): the only file systems whose PSI files take
    /// triggers. Anything else (a test's regular file) is read on the timer, never written.
    static let pressureFileSystems: Set<Int> = [0x9fa0, 0x6367_7270]

    /// The open PSI file, the trigger written on it; the owner polls it for `POLLPRI` and closes it.
    let fd: Int32

    /// The stall that fires the trigger for a warning threshold of `warningPercent`: half its share of the window,
    /// at least 1 µs.
    static func stallMicroseconds(warningPercent: Double) -> UInt64 {
        let share = max(0, min(100, warningPercent)) / 200
        return max(1, UInt64((Double(Self.windowMicroseconds) * share).rounded(.down)))
    }

    /// Opens `path` and writes the trigger on it.
    ///
    /// - Returns: The trigger, or why none could be created (the file is not a PSI file of procfs or cgroupfs, it
    ///   cannot be opened for writing, or the kernel refused the trigger), for the log.
    static func create(path: String, stallMicroseconds: UInt64) -> Result<PSITrigger, PSITriggerUnavailable> {
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.init("cannot open \(path) for writing: \(SystemFiles.describe(errno))")) }
        guard Self.pressureFileSystems.contains(Int(runway_file_system_type(fd))) else {
            close(fd)
            return .failure(.init("\(path) is not a PSI file of procfs or cgroupfs"))
        }
        var text = Array("some \(stallMicroseconds) \(Self.windowMicroseconds)".utf8) + [0]
        let written = text.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written >= 0 else {
            let code = errno
            close(fd)
            return .failure(.init("the kernel refused a trigger on \(path): \(SystemFiles.describe(code))"))
        }
        return .success(PSITrigger(fd: fd))
    }
}

/// Why no PSI trigger was created: the monitor reads the file on its timer instead.
struct PSITriggerUnavailable: Error, Hashable, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
