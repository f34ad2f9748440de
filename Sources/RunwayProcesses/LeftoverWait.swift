import RunwayCore

/// How long the supervisor waits for a process an app left behind (killed with the app, `ProcessSupervisor.Orphan`)
/// to be reaped: until it is gone, or until more than `timeout` (`ProcessOptions.orphanReapTimeout`, 5 s by
/// default) has passed since the app's exit left it; then it is forgotten (not reaped, listed no more), so that a
/// process owned by someone else, or one that cannot die, does not keep the tick running or a stop waiting.
///
/// Pure: the caller tries to reap the process and passes whether it is gone, and the loop turn's clock reading;
/// this value only decides. Loop thread only.
struct LeftoverWait: Hashable, Sendable {
    /// What to do with the process after a look.
    enum Decision: Hashable, Sendable {
        /// It is reaped or gone: stop waiting for it.
        case gone
        /// Look again at the next tick.
        case wait
        /// Forget it: it was still there `waited` after it was left, more than the timeout.
        case giveUp(waited: TimeSpan)
    }

    /// When the app's exit left the process behind.
    let since: Instant
    let timeout: TimeSpan

    /// The process was looked at, at `now`.
    ///
    /// - Returns: `gone` when `gone` (that wins after the timeout too); `giveUp` once `now - since > timeout`
    ///   (strictly: at exactly the timeout it is still waited for); else `wait`.
    func observed(gone: Bool, now: Instant) -> Decision {
        if gone { return .gone }
        let waited = now - self.since
        return waited > self.timeout ? .giveUp(waited: waited) : .wait
    }
}
