import RunwayCore

/// A suspension of a protocol app held back until the app has read what was written to its channel
/// (Docs/AppProtocol.md): the answer to its last `endBackgroundTask` is written just before the core
/// suspends it (B5), and a child frozen before it reads that answer would get it only when it is resumed. The
/// freeze waits until the app has read everything and none of its threads is running any more (it has handled
/// the answer and gone back to waiting), or until `timeout` (`ProcessOptions.suspendDrainTimeout`) has passed.
///
/// Pure: the caller reads the channel (`SIOCOUTQ` and libuv's write queue) and `/proc/PID/task/*/stat` and the
/// loop's clock and passes what it saw; this value only decides. The core's lifecycle does not wait for it: the
/// app is `suspended` for the core from the start, and nothing else is sent to it meanwhile.
struct SuspensionDrain: Hashable, Sendable {
    /// What to do after an observation.
    enum Decision: Hashable, Sendable {
        /// Keep waiting.
        case wait
        /// Freeze now: the app read everything and is idle, `after` the suspension was asked for.
        case drained(after: TimeSpan)
        /// Freeze now anyway: `timeout` passed; `unreadBytes` were still unread (0 when only a thread still ran).
        case timedOut(waited: TimeSpan, unreadBytes: Int)
    }

    /// When the suspension was asked for (the loop turn's clock reading).
    let since: Instant
    let timeout: TimeSpan

    /// Whether a suspension must wait at all: only when something written to the app is still unread, or was
    /// written in the same loop turn (the app may have read it already, on another core, and not handled it yet),
    /// so that an app that was sent nothing is frozen at once however busy its threads are.
    static func isNeeded(unreadBytes: Int, writtenThisTurn: Bool, timeout: TimeSpan) -> Bool {
        (unreadBytes > 0 || writtenThisTurn) && timeout > .zero
    }

    /// The channel and the app's threads were read at `now`.
    ///
    /// - Parameters:
    ///   - unreadBytes: What the app has not read yet (libuv's queue plus the socket's); any value > 0 waits.
    ///   - threadRunning: True when a thread of the app's main process is running or runnable (state `R`).
    /// - Returns: `drained` when nothing is unread and no thread runs (that wins at the timeout's instant),
    ///   `timedOut` once `now - since >= timeout`, else `wait`.
    func observed(unreadBytes: Int, threadRunning: Bool, now: Instant) -> Decision {
        let elapsed = now - self.since
        if unreadBytes <= 0 && !threadRunning { return .drained(after: elapsed) }
        if elapsed >= self.timeout { return .timedOut(waited: elapsed, unreadBytes: max(0, unreadBytes)) }
        return .wait
    }
}
