// Deadlines: the expiration warning (B4), the budget deadline (B6), the overrun notice (B11), the background
// entry grace (L3) and the termination grace (L4, P2).

extension Scheduler {
    /// The clock reached `now`: fires every deadline at or before it (B9), in `(deadline, arming)` order
    /// (B10). Deadlines are collected before any fires; a deadline armed by a firing waits for the next call,
    /// even if it is already due.
    public mutating func clockAdvanced(to now: Instant) -> [Action] {
        self.advanceClock(to: now)
        return self.finish()
    }

    /// `clockAdvanced(to:)` with the actions left for `finish()` or `finish(into:)`.
    mutating func advanceClock(to now: Instant) {
        self.begin(now)
        var due = self.dueTimers
        self.dueTimers = []
        self.timers.drainDue(now: now, into: &due)
        for entry in due {
            self.fire(entry.payload, handle: entry.handle)
        }
        due.removeAll(keepingCapacity: due.capacity <= 64)
        self.dueTimers = due
    }

    /// Runs one due timer if its app still holds it. A timer cancelled by an earlier firing of the same batch
    /// is skipped: its app has left the state that held the handle.
    mutating func fire(_ key: TimerKey, handle: DeadlineHandle) {
        let index = key.app
        switch key.kind {
        case .expirationWarning:
            // B4: every outstanding task's handler, once, in the order the tasks began.
            let holds = self.apps[index].lifecycle.withBackground { period, _ in
                guard case .limited(let deadline, let timer, .armed(handle)) = period.budget else { return false }
                period.budget = .limited(deadline: deadline, timer: timer, warning: .fired)
                return true
            }
            guard holds == true else { return }
            // Queued in place, straight from the app's list (no array of ids and none of messages in between).
            let table = self.taskTable
            self.apps[index].lifecycle.withRunning { running in
                let ids = running.tasks.ids
                running.outbox.appendExpirations(of: ids) { table.owner(of: $0) == index }
            }
            self.advance(index)

        case .budgetDeadline:
            // B6: suspend (or exit, E1) with no task outstanding; otherwise the overrun policy decides.
            guard case .background(let period, let running) = self.apps[index].lifecycle,
                case .limited(_, handle, _) = period.budget
            else { return }
            if running.tasks.isEmpty {
                self.suspendOrExit(index, cause: .budgetExpired)
                return
            }
            switch self.overrunPolicy(of: index) {
            case .terminate:
                self.beginTermination(index, reason: .budgetOverrun, graceful: false)
            case .suspend:
                self.endAllTasks(index)
                self.suspendOrExit(index, cause: .budgetExpired)
            }

        case .overrunNotice:
            // B11: SIGTERM, inside the budget, to a process app that still holds tasks; it stays in the background
            // and SIGKILL follows at the deadline unless it ends its tasks (B5) or exits (L6) first.
            let holdsTasks = self.apps[index].lifecycle.withBackground { period, running -> Bool in
                guard case .armed(handle) = period.notice else { return false }
                period.notice = .fired
                return !running.tasks.isEmpty
            }
            if holdsTasks == true { self.actions.append(.sendTerminateSignal(self.apps[index].id)) }

        case .backgroundEntryGrace:
            // L3: `didEnterBackground` did not return in time: terminated if it holds no background task;
            // otherwise the budget governs (the app is still not suspended before the message returns).
            let tasksHeld = self.apps[index].lifecycle.withBackground { period, running -> Bool? in
                guard case .awaiting(handle?) = period.entry else { return nil }
                period.entry = .awaiting(grace: nil)
                return !running.tasks.isEmpty
            }
            guard case false?? = tasksHeld else { return }
            self.beginTermination(index, reason: .backgroundEntryTimeout, graceful: false)

        case .restart:
            // KeepAlive: launch the app again (Scheduler+Restart.swift).
            self.restartDue(index, handle: handle)

        case .termination:
            guard let termination = self.apps[index].lifecycle.termination, termination.timer == handle else { return }
            self.terminationGraceReached(index, termination)

        case .refresh:
            // W7: a scheduled refresh is due.
            self.refreshDue(index, handle: handle)
        }
    }

    /// The app's overrun policy: its own, else the scheduler's (B6).
    func overrunPolicy(of index: Int) -> OverrunPolicy {
        self.apps[index].descriptor.overrunPolicy ?? self.settings.overrunPolicy
    }

    /// B11: arms the overrun notice of a budget ending at `deadline`, for a process app whose overrun policy is
    /// `terminate`, when `OverrunSignalLead` is set; otherwise there is none.
    mutating func armNotice(_ index: Int, deadline: Instant, notBefore: Instant) -> BackgroundPeriod.Notice {
        guard self.apps[index].descriptor.isProcess, self.overrunPolicy(of: index) == .terminate,
            let at = self.settings.noticeInstant(deadline: deadline, notBefore: notBefore)
        else { return .none }
        return .armed(self.arm(.overrunNotice, app: index, at: at))
    }
}
