import RunwayCore

/// How long the supervisor blocks, at its start or at its close, for processes it has just SIGKILLed to be gone or
/// zombies: those a previous daemon left (`ProcessSupervisor+StateFile.swift`) and the unattributed ones
/// (`ProcessSupervisor+Unattributed.swift`). It looks again every millisecond while any is left and less than
/// `timeout` (`ProcessOptions.orphanReapTimeout`) has passed since the kill; at the timeout it stops, and what is
/// left is logged (and, at close, kept for the state file). These are the only waits of the supervisor that read
/// the monotonic clock themselves: no loop turn runs during them.
///
/// Pure: the caller reads the clock and the processes; this value only decides. Any thread.
struct KilledProcessWait: Hashable, Sendable {
    /// What to do after a look.
    enum Decision: Hashable, Sendable {
        /// Nothing is left: stop.
        case done
        /// Look again (after a short sleep).
        case lookAgain
        /// Stop waiting: `waited` has reached the timeout with processes left.
        case giveUp(waited: TimeSpan)
    }

    /// When the processes were killed.
    let since: Instant
    /// At least zero: a negative timeout is none.
    let timeout: TimeSpan

    init(since: Instant, timeout: TimeSpan) {
        self.since = since
        self.timeout = max(.zero, timeout)
    }

    /// The processes were looked at, at `now`, and `remaining` of them are still there.
    ///
    /// - Returns: `done` when none remains (whatever the time); `giveUp` once `now - since >= timeout`; else
    ///   `lookAgain`.
    func observed(remaining: Int, now: Instant) -> Decision {
        if remaining == 0 { return .done }
        let waited = now - self.since
        return waited < self.timeout ? .lookAgain : .giveUp(waited: waited)
    }
}
