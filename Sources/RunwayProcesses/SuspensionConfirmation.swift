import RunwayCore

/// One suspend or resume waiting for the kernel to show it (P1): pending until the kernel shows the app in the
/// requested state (confirmed), until `timeout` has passed since the request (timed out), or until the kernel refused
/// its signal (refused). All three are final.
///
/// Pure: the caller reads the kernel (`cgroup.events`, `/proc/PID/stat`) and the loop's clock and passes what it
/// saw and `now`; this value only keeps the request and decides the outcome. A confirmation that times out only
/// changes what the log and `ProcessStatus.suspensionConfirmed` say; the core's lifecycle does not wait for it.
struct SuspensionConfirmation: Hashable, Sendable {
    /// Where a confirmation stands after an observation.
    enum Status: Hashable, Sendable {
        /// Not shown by the kernel yet, and less than `timeout` since the request.
        case pending
        /// The kernel showed the requested state `after` the request.
        case confirmed(after: TimeSpan)
        /// The kernel did not show it within `timeout`; `waited` is how long it had when that was noticed.
        case timedOut(waited: TimeSpan)
        /// The kernel refused the signal to one of the app's processes: it cannot show the requested state.
        case refused
    }

    /// True for a suspend (freeze, SIGSTOP), false for a resume (thaw, SIGCONT).
    let suspending: Bool
    /// When the request was made (the loop turn's clock reading).
    let since: Instant
    /// How long the kernel may take: `ProcessOptions.confirmationTimeout`.
    let timeout: TimeSpan
    /// `pending` until an observation confirms it or finds it late; then fixed.
    private(set) var status: Status = .pending

    init(suspending: Bool, since: Instant, timeout: TimeSpan) {
        self.suspending = suspending
        self.since = since
        self.timeout = timeout
    }

    /// True once confirmed; false while pending and after a time-out.
    var isConfirmed: Bool {
        if case .confirmed = self.status { return true }
        return false
    }

    /// True until confirmed or timed out.
    var isPending: Bool { self.status == .pending }

    /// Whether the kernel may be read for this request at `now`: a resumption at once (SIGCONT and a thaw take
    /// effect before the call returns), a suspension never in the loop turn it was requested in. That turn's scan
    /// of the app is shared, so a look then would not rescan, and a process forked between the scan and SIGSTOP
    /// outside the group would go unseen while the rest shows stopped. The tick resumes drains and then checks
    /// confirmations in one turn, and libuv before 1.48 runs a timer re-armed with a zero timeout in the same pass,
    /// so the rule is on the instant, not on who calls.
    func mayLook(now: Instant) -> Bool {
        !(self.suspending && self.since == now)
    }

    /// The kernel refused the request's signal to one of the app's processes: not confirmed, and final (a
    /// process that did not get SIGSTOP is not stopped by waiting). Does nothing once confirmed or timed out.
    mutating func signalRefused() {
        if self.status == .pending { self.status = .refused }
    }

    /// The kernel was read at `now`: `showsRequestedState` is true when it shows the app suspended (for a
    /// suspend) or running (for a resume).
    ///
    /// - Returns: The new status. A kernel showing the state wins over the time-out at the same instant; the
    ///   time-out is reached when `now - since >= timeout` (a zero timeout gives up at the first look that does
    ///   not confirm). Once confirmed or timed out, the status no longer changes and observations are ignored.
    mutating func kernelObserved(showsRequestedState: Bool, now: Instant) -> Status {
        guard self.status == .pending else { return self.status }
        let elapsed = now - self.since
        if showsRequestedState {
            self.status = .confirmed(after: elapsed)
        } else if elapsed >= self.timeout {
            self.status = .timedOut(waited: elapsed)
        }
        return self.status
    }
}
