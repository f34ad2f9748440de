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

    /// The overrun notice of a limited budget (B11): SIGTERM to a process app still holding tasks at
    /// `deadline − OverrunSignalLead`, once per period.
    enum Notice {
        /// No notice in this period: the lead is zero, the app is embedded, its overrun policy is `suspend`, or
        /// the notice would fall on the deadline itself.
        case none
        case armed(DeadlineHandle)
        /// Fired: SIGTERM was sent if the app still held tasks.
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
    var notice: Notice = .none
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
        self.forEachTimer { handle, _ in handles.append(handle) }
        return handles
    }

    /// Calls `body` with every timer the period holds and what it is for: the budget deadline, the expiration
    /// warning, the background entry grace, the overrun notice, in that order. Builds no array.
    func forEachTimer(_ body: (DeadlineHandle, TimerKind) -> Void) {
        if case .limited(_, let timer, let warning) = self.budget {
            body(timer, .budgetDeadline)
            if case .armed(let handle) = warning { body(handle, .expirationWarning) }
        }
        if case .awaiting(let grace?) = self.entry { body(grace, .backgroundEntryGrace) }
        if case .armed(let handle) = self.notice { body(handle, .overrunNotice) }
    }
}

extension SchedulerSettings {
    /// B4, the one place it is computed: the expiration warning of a budget that ends at `deadline` fires
    /// `expirationWarningLead` before it, but never before `notBefore` (the background entry, or the instant an
    /// operator moved the deadline).
    func warningInstant(deadline: Instant, notBefore: Instant) -> Instant {
        Swift.max(notBefore, deadline - self.expirationWarningLead)
    }

    /// B11, the one place it is computed: the overrun notice of a budget that ends at `deadline`, `overrunSignalLead`
    /// before it but never before `notBefore`; nil when the lead is zero or the notice would fall on the deadline.
    func noticeInstant(deadline: Instant, notBefore: Instant) -> Instant? {
        guard self.overrunSignalLead > .zero else { return nil }
        let at = Swift.max(notBefore, deadline - self.overrunSignalLead)
        return at < deadline ? at : nil
    }
}
