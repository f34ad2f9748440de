// Deadlines: the expiration warning (B4), the budget deadline (B6), the background entry grace (L3) and
// the termination grace (L4, P2).

extension Scheduler {
    /// The clock reached `now`: fires every deadline at or before it (B9), in `(deadline, arming)` order
    /// (B10). Deadlines are collected before any fires; a deadline armed by a firing waits for the next call,
    /// even if it is already due.
    public mutating func clockAdvanced(to now: Instant) -> [Action] {
        self.begin(now)
        for entry in self.timers.drainDue(now: now) {
            self.fire(entry.payload, handle: entry.handle, deadline: entry.deadline)
        }
        return self.finish()
    }

    /// Runs one due timer if its owner still holds it (a timer cancelled by an earlier firing in the same
    /// batch is skipped).
    mutating func fire(_ key: TimerKey, handle: DeadlineHandle, deadline: Instant) {
        let index = key.app
        switch key.kind {
        case .expirationWarning:
            guard self.apps[index].period?.warningTimer == handle else { return }
            self.apps[index].period?.warningTimer = nil
            self.recordFiring(index, key.kind, deadline)
            self.expirationWarningReached(index)
        case .budgetDeadline:
            guard self.apps[index].period?.deadlineTimer == handle else { return }
            self.apps[index].period?.deadlineTimer = nil
            self.recordFiring(index, key.kind, deadline)
            self.budgetDeadlineReached(index)
        case .backgroundEntryGrace:
            guard self.apps[index].entryGraceTimer == handle else { return }
            self.apps[index].entryGraceTimer = nil
            self.recordFiring(index, key.kind, deadline)
            // L3: terminated only if it holds no background task; otherwise the budget governs.
            if self.apps[index].state == .background, self.apps[index].tasks.isEmpty {
                self.beginTermination(index, reason: .backgroundEntryTimeout, graceful: false)
            }
        case .termination:
            guard self.apps[index].termination?.timer == handle else { return }
            self.apps[index].termination?.timer = nil
            self.recordFiring(index, key.kind, deadline)
            self.terminationGraceReached(index)
        }
    }

    mutating func recordFiring(_ index: Int, _ kind: TimerKind, _ deadline: Instant) {
        guard self.recordsTimerFirings else { return }
        self.firedTimers.append(
            FiredTimer(app: self.apps[index].id, kind: "\(kind)", deadline: deadline, firedAt: self.lastNow)
        )
    }

    /// B4: every outstanding task's handler, once, in the order the tasks began.
    mutating func expirationWarningReached(_ index: Int) {
        self.apps[index].period?.warned = true
        for id in self.outstandingTasks(index) {
            self.apps[index].outbox.pending.append(.backgroundTaskWillExpire(id))
        }
        self.advance(index)
    }

    /// B6: suspend (or exit, E1) with no task outstanding; otherwise apply the overrun policy.
    mutating func budgetDeadlineReached(_ index: Int) {
        if self.apps[index].tasks.isEmpty {
            self.abandonOutbox(index)
            self.suspendOrExit(index, cause: .budgetExpired)
            return
        }
        switch self.settings.overrunPolicy {
        case .terminate:
            self.beginTermination(index, reason: .budgetOverrun, graceful: false)
        case .suspend:
            self.endAllTasks(index)
            self.abandonOutbox(index)
            self.suspendOrExit(index, cause: .budgetExpired)
        }
    }
}
