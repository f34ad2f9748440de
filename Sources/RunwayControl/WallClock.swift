import Foundation
import Runway
@_spi(Driver) import RunwayCore
import RunwayProcesses

/// Wall-clock times for the scheduler's instants (the timeline, `events`, `status` and the run history): the
/// current wall time minus how long ago the instant was on the scheduler's monotonic clock. A wall-clock step
/// (NTP, an operator) moves the times shown from then on; the scheduler's decisions never use them.
///
/// Thread-safe: it reads both clocks on the calling thread.
struct WallClock: Sendable {
    let scheduler: RunwayScheduler

    /// The wall time of `instant`.
    func date(at instant: Instant) -> Date {
        let now = self.scheduler.now()
        let ago = now >= instant ? (now - instant).seconds : -(instant - now).seconds
        return Date().addingTimeInterval(-ago)
    }

    /// `2026-11-23T12:10:41.123Z`: ISO 8601, UTC, milliseconds.
    func text(at instant: Instant) -> String {
        Self.text(self.date(at: instant))
    }

    static func text(_ date: Date) -> String {
        WallTime(nanosecondsSinceEpoch: Int64((date.timeIntervalSince1970 * 1e9).rounded(.down))).iso8601
    }

    /// `12:10:41.123`: the time of day in UTC, for the timeline's first column.
    func timeOfDay(at instant: Instant) -> String {
        let text = self.text(at: instant)
        guard let t = text.firstIndex(of: "T") else { return text }
        return String(text[text.index(after: t)...].prefix(12))
    }
}
