// Suspension (B5, B6, E1, P1) and termination (L4, L5, P2, P3, P4).

extension Scheduler {
    /// Wherever an app would be suspended, an exits-on-suspend app is terminated with `willTerminate` (E1).
    mutating func suspendOrExit(_ index: Int, cause: TransitionCause) {
        if self.apps[index].descriptor.exitsOnSuspend {
            // The budget is over: a message still in flight is abandoned, so that `willTerminate` goes out now
            // (B6, E1); a late return of it is ignored.
            if cause == .budgetExpired { self.apps[index].lifecycle.withRunning { $0.outbox.inFlight = nil } }
            self.beginTermination(index, reason: .exitsOnSuspend, graceful: true)
            self.advance(index)
        } else {
            self.suspend(index, cause: cause)
        }
    }

    /// background -> suspended. What was queued or in flight is dropped, but notifications are held (N1). A late
    /// return of the abandoned in-flight message is ignored (its token no longer matches).
    mutating func suspend(_ index: Int, cause: TransitionCause) {
        guard case .background(let period, let running) = self.apps[index].lifecycle else {
            preconditionFailure("Suspending \(self.apps[index].id) from \(self.apps[index].state)")
        }
        precondition(running.tasks.isEmpty, "Suspending \(self.apps[index].id) with tasks outstanding")
        self.disarm(period)
        self.actions.append(.suspend(self.apps[index].id))
        self.enter(
            index,
            .suspended(held: running.outbox.heldNotifications(limit: self.settings.notificationQueueLimit))
        )
        self.publish(index, from: .background, to: .suspended, cause: cause, messages: [])
    }

    /// The termination messages of the table of section 2, by the state termination starts from. An app of E1's
    /// immediate style never enters the background, so it is never sent `didEnterBackground`.
    func terminationMessages(from state: AppState, immediate: Bool) -> [Message] {
        switch state {
        case .active:
            return immediate
                ? [.willResignActive, .willTerminate] : [.willResignActive, .didEnterBackground, .willTerminate]
        case .inactive: return immediate ? [.willTerminate] : [.didEnterBackground, .willTerminate]
        case .background: return [.willTerminate]
        case .suspended, .notRunning: return []
        }
    }

    /// Starts terminating a running app.
    ///
    /// - Parameters:
    ///   - graceful: true for the `terminate` rows (messages, then SIGTERM, then SIGKILL at the end of the grace);
    ///     false for kills that send no message (budget overrun, background entry timeout, purge, protocol
    ///     violation): a process app gets SIGKILL at once. A suspended app is always killed without a message (L5).
    mutating func beginTermination(_ index: Int, reason: TerminationReason, graceful: Bool) {
        let record = self.apps[index]
        var from = record.state
        let running: RunningApp
        switch record.lifecycle {
        case .foreground(_, let kept):
            running = kept
        case .background(let period, let kept):
            self.disarm(period)
            running = kept
        case .suspended:
            // L5: no message; held notifications are dropped with the app.
            self.stopRunning(index, reason: reason, messages: [], from: from, running: RunningApp())
            return
        case .notRunning, .terminating:
            preconditionFailure("Terminating \(record.id) from \(from); reason=\(reason)")
        }
        guard graceful else {
            // B6, L3, P2: a kill without messages is SIGKILL now, with no SIGTERM and no grace, as iOS's watchdog
            // and jetsam kill; the warning before the deadline (B4) or the optional notice (B11) was the app's
            // chance to finish.
            var silent = running
            // A process app keeps its running data while it is terminating, so its outbox is emptied; an embedded app
            // stops at once (`stopRunning`) and drops it, outbox and all. Replaced only when that matters: the
            // assignment copies the app's running data (an allocation).
            if record.descriptor.isProcess, !silent.outbox.isIdle || !silent.outbox.notifications.isEmpty {
                silent.outbox = Outbox()
            }
            self.stopRunning(index, reason: reason, messages: [], from: from, running: silent, killAt: self.lastNow)
            return
        }
        let immediate = self.exitsImmediately(record.descriptor)
        let chain = self.terminationMessages(from: from, immediate: immediate)
        var published = chain
        if immediate, from == .active {
            // E1, immediate style: the app resigns and is inactive while `willTerminate` runs; it never reaches the
            // background. The resignation is a transition of its own, so status and events show `inactive`.
            self.publish(index, from: .active, to: .inactive, cause: .terminated(reason), messages: [.willResignActive])
            from = .inactive
            published = [.willTerminate]
        }
        // Messages not yet sent are dropped; the one in flight (if any) finishes first (L2).
        var terminating = running
        terminating.outbox.replacePending(with: chain)
        let grace = self.arm(.termination, app: index, at: self.lastNow + self.settings.terminationGrace)
        let termination = Termination(reason: reason, from: from, messages: published, phase: .messaging(grace: grace))
        self.enter(index, .terminating(termination, terminating))
    }

    /// `willTerminate` returned (L4): stop the app.
    mutating func finishTerminationMessages(_ index: Int, _ termination: Termination) {
        self.disarm(termination.timer.map { [$0] } ?? [])
        var running = self.apps[index].lifecycle.running ?? RunningApp()
        running.outbox = Outbox()
        self.stopRunning(
            index,
            reason: termination.reason,
            messages: termination.messages,
            from: termination.from,
            running: running,
            killAt: termination.killAt,
            userAction: termination.userAction
        )
    }

    /// Embedded apps stop at once. A running process gets SIGTERM and SIGKILL at `killAt` (the end of
    /// `willTerminate`'s grace), or `TerminationGrace` after SIGTERM when no `willTerminate` was awaited; a suspended
    /// one, or one whose `killAt` is now or has passed (a termination without messages passes `lastNow`), gets
    /// SIGKILL at once, without thawing (P2). Processes reach `notRunning` on exit.
    mutating func stopRunning(
        _ index: Int,
        reason: TerminationReason,
        messages: [Message],
        from: AppState,
        running: RunningApp,
        killAt: Instant? = nil,
        userAction: UserAction? = nil
    ) {
        let id = self.apps[index].id
        var termination = Termination(reason: reason, from: from, messages: messages, phase: .killed)
        termination.userAction = userAction
        guard self.apps[index].descriptor.isProcess else {
            self.actions.append(.stop(id))
            self.enter(index, .terminating(termination, running))
            self.becomeNotRunning(index, exit: nil)
            return
        }
        let deadline = killAt ?? self.lastNow + self.settings.terminationGrace
        if from == .suspended || deadline <= self.lastNow {
            self.actions.append(.kill(id))
        } else {
            self.actions.append(.sendTerminateSignal(id))
            termination.phase = .signaled(killAt: self.arm(.termination, app: index, at: deadline))
        }
        self.enter(index, .terminating(termination, running))
    }

    /// The termination grace ran out.
    mutating func terminationGraceReached(_ index: Int, _ termination: Termination) {
        switch termination.phase {
        case .messaging:
            // L4: willTerminate (or a message before it) did not return in time. A process app is killed at once:
            // its grace is used up, and SIGTERM to an app that does not answer would only add another grace.
            var expired = termination
            expired.killAt = self.lastNow
            self.finishTerminationMessages(index, expired)
        case .signaled:
            // P2: SIGTERM was ignored for TerminationGrace.
            self.actions.append(.kill(self.apps[index].id))
            var killed = termination
            killed.phase = .killed
            self.setTermination(index, killed)
        case .killed:
            preconditionFailure("No timer is armed after SIGKILL; app=\(self.apps[index].id)")
        }
    }

    /// Replaces the termination of a terminating app, keeping its running data.
    mutating func setTermination(_ index: Int, _ termination: Termination) {
        guard case .terminating(_, let running) = self.apps[index].lifecycle else {
            preconditionFailure("app=\(self.apps[index].id) is not terminating")
        }
        self.apps[index].lifecycle = .terminating(termination, running)
    }

    /// The app is gone: its tasks end (L6), every timer and message is dropped, the transition is published.
    /// The reason and messages are the termination's when one runs; otherwise how the process ended (L6).
    mutating func becomeNotRunning(_ index: Int, exit: ProcessExit?, otherwise reason: TerminationReason? = nil) {
        let record = self.apps[index]
        let termination = record.lifecycle.termination
        guard let reason = termination?.reason ?? reason else {
            preconditionFailure("app=\(record.id) stopped without a reason")
        }
        self.endAllTasks(index, appIsGone: true)
        self.disarmTimers(of: record)
        self.apps[index].lastTermination = reason
        self.apps[index].lastExit = exit
        self.enter(index, .notRunning)
        let restart = self.considerRestart(index, reason: reason)
        let restoration = self.restorationRunEnded(index, reason: reason, userAction: termination?.userAction)
        self.publish(
            index,
            from: termination?.from ?? record.state,
            to: .notRunning,
            cause: .terminated(reason),
            messages: termination?.messages ?? [],
            exit: exit,
            restart: restart,
            userAction: termination?.userAction,
            ending: restoration
        )
    }
}
