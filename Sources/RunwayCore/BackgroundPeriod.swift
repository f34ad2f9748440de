/// One background period: from entering the background until foreground, suspension or termination (B3–B7).
struct BackgroundPeriod {
    /// The budget of the period.
    enum Budget {
        /// Background modes (L7): no budget, never suspended for lack of tasks.
        case unlimited
        /// The deadline (B3) with its timer, and the expiration warning (B4).
        case limited(deadline: Instant, timer: DeadlineHandle, warning: Warning)
    }

    /// The expiration warning of a limited budget (B4: once per period).
    enum Warning {
        case armed(DeadlineHandle)
        case fired
    }

    /// Whether `didEnterBackground` is still outstanding (B5: no suspension before it returns; L3: its grace).
    enum Entry {
        /// Queued or delivered and not returned. `grace` is the L3 timer, armed when the message is sent and
        /// nil before that or once the grace has passed.
        case awaiting(grace: DeadlineHandle?)
        case returned
    }

    var entered: Instant
    var budget: Budget
    var entry: Entry
    /// Background wake-ups not yet completed, in the order they came (W4): the app is not suspended for lack of
    /// tasks while one is outstanding. Only in a limited budget; at most `backgroundWakeLimitPerApp`.
    var wakes: [WakeToken] = []

    /// The budget deadline, or nil for background modes.
    var deadline: Instant? {
        if case .limited(let deadline, _, _) = self.budget { return deadline }
        return nil
    }

    var isWarned: Bool {
        if case .limited(_, _, .fired) = self.budget { return true }
        return false
    }

    var isAwaitingEntry: Bool {
        if case .awaiting = self.entry { return true }
        return false
    }

    /// `backgroundTimeRemaining` (B3): unlimited for background modes, else `max(0, deadline - now)`.
    func remaining(now: Instant) -> TimeSpan {
        guard let deadline = self.deadline else { return .max }
        return now >= deadline ? .zero : deadline - now
    }

    /// Every timer the period holds.
    var timers: [DeadlineHandle] {
        var handles: [DeadlineHandle] = []
        if case .limited(_, let timer, let warning) = self.budget {
            handles.append(timer)
            if case .armed(let handle) = warning { handles.append(handle) }
        }
        if case .awaiting(let grace?) = self.entry { handles.append(grace) }
        return handles
    }
}

extension SchedulerSettings {
    /// B4, the one place it is computed: the expiration warning of a budget that ends at `deadline` fires
    /// `expirationWarningLead` before it, but never before `notBefore` (the background entry, or the instant an
    /// operator moved the deadline).
    func warningInstant(deadline: Instant, notBefore: Instant) -> Instant {
        Swift.max(notBefore, deadline - self.expirationWarningLead)
    }
}
