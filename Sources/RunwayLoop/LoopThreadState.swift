import RunwayCore

/// The mutable state of an `EventLoopThread` that belongs to its loop thread.
///
/// Safety (`@unchecked Sendable`): every property is read and written only on the loop thread. The entry
/// points that reach it are (a) libuv callbacks, which run on the loop thread because only that thread
/// calls `uv_run`, and (b) `EventLoopThread` members documented "loop thread only", which check
/// `precondition(inEventLoop)` before touching it. The creating thread writes the initial values before
/// `pthread_create`, which orders them before anything the loop thread does.
final class LoopThreadState: @unchecked Sendable {
    /// The clock reading of the current loop turn (`EventLoopThread.turnNow`).
    var turnNow: Instant
    /// False once the loop is about to block or has run a round of I/O callbacks: the next `turnNow` reads the
    /// clock again.
    var turnIsCurrent = false
    /// The armed wake-up, or nil when the timerfd is disarmed.
    var wakeupDeadline: Instant?
    /// True from a wake-up's firing until the next `timerfd_settime`: the expiry is still in the timerfd (it is
    /// never read), which stays readable until re-armed or disarmed.
    var expiryUnread = false
    /// `timerfd_settime` calls made (`EventLoopThread.timerCallsMade`).
    var timerCalls = 0
    /// Set once libuv's idle-time accounting is on (`EventLoopThread.idleTime()`).
    var idleTimeCounted = false
    /// Called with the batch's clock reading when the wake-up fires.
    var onWakeup: (Instant) -> Void
    /// The previous batch's array, kept to reuse its storage for the next swap with the inbox.
    var spareBatch: [@Sendable () -> Void] = []
    /// Inbox batches run so far (`EventLoopThread.inboxBatchesRun`).
    var inboxBatches = 0
    /// Set when the loop starts closing its handles; wake-ups can no longer be armed.
    var isTornDown = false
    /// What the thread got for `EventLoopThread.priority`; set before the loop runs.
    var priorityOutcome = LoopThreadPriorityOutcome.inherited

    init(turnNow: Instant, onWakeup: @escaping (Instant) -> Void) {
        self.turnNow = turnNow
        self.onWakeup = onWakeup
    }
}
