// Operator overrides of a background budget (`runway extend APP SECONDS`, `runway expire APP`). They move the
// deadline of the current background period; everything after that (warning, deadline, overrun policy) runs
// through the ordinary timers of Scheduler+Timers.swift, so deadlines stay exact (B9) and FIFO (B10).

extension Scheduler {
    /// An operator gave the app more background time: the budget deadline of its current background period
    /// moves `extra` later.
    ///
    /// The expiration warning moves with it to `max(now, newDeadline - ExpirationWarningLead)` if it has not
    /// fired yet; handlers that already ran are not called again in this period (B4: once).
    ///
    /// - Parameters:
    ///   - extra: Added to the deadline; must be positive.
    ///   - app: An app in `background` with a budget (not a background-mode app, L7), not terminating.
    ///   - now: The driver's reading for this turn.
    /// - Returns: The actions to run (a wake-up change).
    /// - Throws: `unknownApp`; `noBudget` (naming the app and its state) when the app has no running budget.
    ///   Nothing changes when it throws.
    public mutating func budgetExtended(
        by extra: TimeSpan,
        for app: AppID,
        now: Instant
    ) throws(SchedulerError) -> [Action] {
        precondition(extra > .zero, "budgetExtended needs a positive span, got \(extra)")
        self.begin(now)
        let (index, deadline) = try self.budgetedIndex(of: app)
        let newDeadline = deadline + extra
        self.moveDeadline(
            index,
            to: newDeadline,
            warningAt: self.settings.warningInstant(deadline: newDeadline, notBefore: now)
        )
        return self.finish()
    }

    /// An operator ended the app's budget now: the deadline of its current background period becomes `now`.
    ///
    /// Both timers are re-armed at `now` (warning first, B10) and fire at the next `clockAdvanced(to:)` that
    /// reaches `now` (the driver wakes at once): expiration handlers not yet called are called, then the
    /// deadline rule B6 applies in the same batch, so no handler can save the app: with no task outstanding
    /// it is suspended (or terminated, E1), otherwise `OverrunPolicy` decides.
    ///
    /// - Throws: `unknownApp`; `noBudget` when the app has no running budget. Nothing changes when it throws.
    public mutating func budgetExpiredByOperator(for app: AppID, now: Instant) throws(SchedulerError) -> [Action] {
        self.begin(now)
        let (index, _) = try self.budgetedIndex(of: app)
        self.moveDeadline(index, to: now, warningAt: now)
        return self.finish()
    }

    /// The index and deadline of an app whose budget is running: `background` with a limited budget (a
    /// terminating app is not in the background).
    private mutating func budgetedIndex(of app: AppID) throws(SchedulerError) -> (Int, Instant) {
        let index = try self.index(of: app)
        let record = self.apps[index]
        guard let deadline = record.lifecycle.period?.deadline else {
            throw SchedulerError(.noBudget, app: app, state: record.state, terminating: record.lifecycle.isTerminating)
        }
        return (index, deadline)
    }

    /// Re-arms the period's timers: the warning (only if it has not fired in this period, B4) at `warningAt`,
    /// the overrun notice (only if it is still armed, B11) `OverrunSignalLead` before the new deadline, then the
    /// deadline, so that at equal instants the warning and the notice fire first (B10).
    mutating func moveDeadline(_ index: Int, to deadline: Instant, warningAt: Instant) {
        guard let period = self.apps[index].lifecycle.period,
            case .limited(_, let timer, let warning) = period.budget
        else {
            preconditionFailure("\(self.apps[index].id) has no budget")
        }
        self.disarm([timer])
        var moved = BackgroundPeriod.Warning.fired
        if case .armed(let handle) = warning {
            self.disarm([handle])
            moved = .armed(self.arm(.expirationWarning, app: index, at: warningAt))
        }
        var notice = period.notice
        if case .armed(let handle) = notice {
            self.disarm([handle])
            notice = self.armNotice(index, deadline: deadline, notBefore: self.lastNow)
        }
        let newTimer = self.arm(.budgetDeadline, app: index, at: deadline)
        self.apps[index].lifecycle.withBackground { period, _ in
            period.budget = .limited(deadline: deadline, timer: newTimer, warning: moved)
            period.notice = notice
        }
    }
}
