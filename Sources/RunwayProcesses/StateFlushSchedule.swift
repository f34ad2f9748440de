@_spi(Processes) import RunwayCore

/// When the process state file is rewritten (`ProcessSupervisor+StateFile.swift`): once after a change, however many
/// changes a turn makes (a batch of N launches, exits or scans costs one write), and never when no file is kept or
/// the supervisor is closed (the close writes it itself).
///
/// The rule: a change on a file last written at least `spacing` (50 ms) ago, or never, is written on the next loop
/// turn, so a launch into a quiet daemon is listed before a `kill -9` a moment later can leave its child behind. A
/// change within `spacing` of the last write waits until `spacing` after it: a burst of launches over many turns
/// (slices of 16 per turn) rewrites the whole file at most 20 times a second instead of once per turn, which at
/// 10,000 apps was a write of every entry per slice. During a burst the file lags the tracked processes by at most
/// `spacing`.
///
/// Pure: the caller owns the flush timer, passes the loop turn's clock reading and performs the write; this value
/// only decides. Loop thread only.
struct StateFlushSchedule: Hashable, Sendable {
    /// The least time between two writes, except for the first change after a quiet period (written next turn).
    static let spacing: TimeSpan = .milliseconds(50)

    /// When to write.
    enum Arming: Hashable, Sendable {
        /// On the next loop turn (a zero timeout).
        case nextTurn
        /// After `milliseconds`, when the last write is `spacing` old.
        case after(milliseconds: UInt64)
    }

    /// True from a change until the write that covers it.
    private(set) var isDirty = false
    /// The loop turn of the last write; nil before the first.
    private(set) var lastWrite: Instant?

    init() {}

    /// Something the file lists changed at `now`.
    ///
    /// - Returns: When the flush timer must fire, or nil when no timer is to be armed: no file is kept, the
    ///   supervisor is closed, or a write is pending already (it will cover this change).
    mutating func changed(keepsFile: Bool, closed: Bool, now: Instant) -> Arming? {
        guard keepsFile, !self.isDirty, !closed else { return nil }
        self.isDirty = true
        guard let last = self.lastWrite, now < last + Self.spacing else { return .nextTurn }
        let wait = (last + Self.spacing) - now
        // Rounded up to whole milliseconds: libuv's timers count milliseconds.
        return .after(milliseconds: UInt64((wait.nanoseconds + 999_999) / 1_000_000))
    }

    /// The file is being written at `now`: the next change arms a new write.
    mutating func flushed(now: Instant) {
        self.isDirty = false
        self.lastWrite = now
    }
}
