#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Which of a process app's streams a line came from.
package enum AppLogStream: String, Hashable, Sendable, CaseIterable {
    case stdout
    case stderr
}

/// A wall-clock time (CLOCK_REALTIME), for stamping app output: operators read it next to other logs, so it is
/// not the scheduler's monotonic clock. A value; any thread.
package struct WallTime: Hashable, Sendable, Comparable {
    package var nanosecondsSinceEpoch: Int64

    package init(nanosecondsSinceEpoch: Int64) {
        self.nanosecondsSinceEpoch = nanosecondsSinceEpoch
    }

    /// Reads CLOCK_REALTIME (one `clock_gettime`). Any thread.
    package static func now() -> WallTime {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return WallTime(nanosecondsSinceEpoch: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }

    package static func < (lhs: WallTime, rhs: WallTime) -> Bool {
        lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
    }

    /// ISO 8601 in UTC with milliseconds: `2026-11-23T12:10:41.123Z`. Pure (no locale, no time zone file).
    package var iso8601: String { self.iso8601(fractionDigits: 3) }

    /// ISO 8601 in UTC with `fractionDigits` (1 to 9) digits of the second, truncated:
    /// `2026-11-23T12:10:41.123456Z` for 6.
    package func iso8601(fractionDigits: Int) -> String {
        var seconds = time_t(self.nanosecondsSinceEpoch.floorDivided(by: 1_000_000_000))
        var divisor: Int64 = 1
        for _ in fractionDigits..<9 { divisor *= 10 }
        let fraction = (self.nanosecondsSinceEpoch - Int64(seconds) * 1_000_000_000) / divisor
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(parts.tm_year + 1900, 4) + "-" + pad(parts.tm_mon + 1, 2) + "-" + pad(parts.tm_mday, 2) + "T"
            + pad(parts.tm_hour, 2) + ":" + pad(parts.tm_min, 2) + ":" + pad(parts.tm_sec, 2) + "."
            + pad(Int32(fraction), fractionDigits) + "Z"
    }
}

/// Formats wall times as `WallTime.iso8601` does, remembering the text of the last second: output comes in bursts
/// within one second, and formatting the date for every line was most of the cost of writing a line to a file.
/// A value; not thread-safe (the loop thread owns the store's).
package struct WallTimeFormatter {
    private var second: Int64 = .min
    /// `2026-11-23T12:10:41.` for `second`.
    private var prefix = ""

    package init() {}

    package mutating func iso8601(_ time: WallTime) -> String {
        let second = time.nanosecondsSinceEpoch.floorDivided(by: 1_000_000_000)
        if second != self.second {
            self.second = second
            self.prefix = String(WallTime(nanosecondsSinceEpoch: second * 1_000_000_000).iso8601.dropLast(4))
        }
        let milliseconds = Int((time.nanosecondsSinceEpoch - second * 1_000_000_000) / 1_000_000)
        let digits = String(milliseconds)
        return self.prefix + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }
}

extension Int64 {
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}

/// One line of a process app's stdout or stderr, stamped when Runway framed it (without its newline), or a note
/// of Runway's about that stream (the text then starts with `[runway] `). A value; any thread.
package struct AppLogLine: Hashable, Sendable {
    package var time: WallTime
    package var stream: AppLogStream
    package var text: String

    package init(time: WallTime, stream: AppLogStream, text: String) {
        self.time = time
        self.stream = stream
        self.text = text
    }

    /// `2026-11-23T12:10:41.123Z stdout text`: the form of `runway logs` and of the log files.
    package var formatted: String { "\(self.time.iso8601) \(self.stream.rawValue) \(self.text)" }

    /// The prefix of Runway's own notes in an app's log.
    package static let notePrefix = "[runway] "
}
