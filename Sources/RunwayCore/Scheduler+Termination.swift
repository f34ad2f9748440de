// Suspension (B5, B6, E1, P1) and termination (L4, L5, L6, P2, P3, P4).

extension Scheduler {
    /// Wherever an app would be suspended, an exits-on-suspend app is terminated with `willTerminate` (E1).
    mutating func suspendOrExit(_ index: Int, cause: TransitionCause) {
        if self.apps[index].descriptor.exitsOnSuspend {
            self.beginTermination(index, reason: .exitsOnSuspend, graceful: true)
            self.advance(index)
        } else {
            self.suspend(index, cause: cause)
        }
    }

    mutating func suspend(_ index: Int, cause: TransitionCause) {
        precondition(self.apps[index].tasks.isEmpty, "Suspending \(self.apps[index].id) with tasks outstanding")
        self.endBackgroundPeriod(index)
        self.abandonOutbox(index)
        let from = self.apps[index].state
        self.actions.append(.suspend(self.apps[index].id))
        self.setState(index, .suspended)
        self.publish(index, from: from, to: .suspended, cause: cause, messages: [])
    }

    /// The termination messages of the table in SPEC section 2, by the state termination starts from.
    func terminationMessages(from state: AppState) -> [Message] {
        switch state {
        case .active: return [.willResignActive, .didEnterBackground, .willTerminate]
        case .inactive: return [.didEnterBackground, .willTerminate]
        case .background: return [.willTerminate]
        case .suspended, .notRunning: return []
        }
    }

    /// Starts terminating a running app.
    ///
    /// - Parameters:
    ///   - graceful: true for the `terminate` rows (messages, then stop); false for kills that send no message
    ///     (budget overrun, background entry timeout, purge, protocol violation). A suspended app is always
    ///     killed without a message (L5).
    ///   - messages: overrides the table (E1 immediate style).
    mutating func beginTermination(_ index: Int, reason: TerminationReason, graceful: Bool, messages: [Message]? = nil) {
        let record = self.apps[index]
        precondition(record.state != .notRunning, "Terminating \(record.id), which is not running")
        precondition(record.termination == nil, "Terminating \(record.id) twice; reason=\(reason)")
        self.endBackgroundPeriod(index)
        self.stopAwaitingBackgroundEntry(index)
        _ = self.apps[index].heldNotifications.removeAll()

        guard graceful, record.state != .suspended else {
            self.apps[index].outbox = Outbox()
            self.stopRunning(index, reason: reason, messages: [])
            return
        }
        let chain = messages ?? self.terminationMessages(from: record.state)
        // Messages not yet sent are dropped; the one in flight (if any) finishes first (L2).
        self.apps[index].outbox.pending = MessageQueue(chain)
        let timer = self.arm(.termination, app: index, at: self.lastNow + self.settings.terminationGrace)
        self.apps[index].termination = Termination(
            reason: reason,
            phase: .messaging,
            from: record.state,
            messages: chain,
            timer: timer
        )
    }

    /// `willTerminate` returned, or the messages' grace ran out (L4): stop the app.
    mutating func finishTerminationMessages(_ index: Int) {
        guard let termination = self.apps[index].termination else { return }
        var timer = termination.timer
        disarm(&timer, in: &self.timers)
        self.apps[index].termination = nil
        self.apps[index].outbox = Outbox()
        self.stopRunning(index, reason: termination.reason, messages: termination.messages, from: termination.from)
    }

    /// Embedded apps stop at once. A running process gets SIGTERM and SIGKILL after `TerminationGrace`; a
    /// suspended one gets SIGKILL at once, without thawing (P2). Processes reach `notRunning` on exit.
    mutating func stopRunning(_ index: Int, reason: TerminationReason, messages: [Message], from: AppState? = nil) {
        let record = self.apps[index]
        let from = from ?? record.state
        let id = record.id
        guard record.descriptor.isProcess else {
            self.actions.append(.stop(id))
            self.becomeNotRunning(index, reason: reason, messages: messages, from: from, exit: nil)
            return
        }
        if record.state == .suspended {
            self.actions.append(.kill(id))
            self.apps[index].termination = Termination(reason: reason, phase: .killed, from: from, messages: messages)
        } else {
            self.actions.append(.sendTerminateSignal(id))
            let timer = self.arm(.termination, app: index, at: self.lastNow + self.settings.terminationGrace)
            self.apps[index].termination = Termination(
                reason: reason,
                phase: .signaled,
                from: from,
                messages: messages,
                timer: timer
            )
        }
    }

    mutating func terminationGraceReached(_ index: Int) {
        guard let termination = self.apps[index].termination else { return }
        switch termination.phase {
        case .messaging:
            // L4: willTerminate (or a message before it) did not return in time.
            self.finishTerminationMessages(index)
        case .signaled:
            // P2: SIGTERM was ignored for TerminationGrace.
            self.actions.append(.kill(self.apps[index].id))
            self.apps[index].termination?.phase = .killed
        case .killed:
            preconditionFailure("No timer is armed after SIGKILL; app=\(self.apps[index].id)")
        }
    }

    /// The app is gone: its tasks end (L6), every timer and message is dropped, the transition is published.
    mutating func becomeNotRunning(
        _ index: Int,
        reason: TerminationReason,
        messages: [Message],
        from: AppState,
        exit: ProcessExit?
    ) {
        self.endAllTasks(index)
        self.endBackgroundPeriod(index)
        self.stopAwaitingBackgroundEntry(index)
        if var termination = self.apps[index].termination {
            disarm(&termination.timer, in: &self.timers)
        }
        self.apps[index].termination = nil
        self.apps[index].outbox = Outbox()
        _ = self.apps[index].heldNotifications.removeAll()
        self.apps[index].lastTermination = reason
        self.apps[index].lastExit = exit
        self.setState(index, .notRunning)
        self.publish(index, from: from, to: .notRunning, cause: .terminated(reason), messages: messages, exit: exit)
    }

    // MARK: Events from the driver

    /// A process app's child exited (reaped by the driver). During a termination the reason is the
    /// termination's; otherwise it is `exited(status)` or `signaled(signal)` (L6). Its tasks end; nothing
    /// else is disturbed. A report for an app that is not running is ignored.
    public mutating func processExited(_ app: AppID, exit: ProcessExit, now: Instant) -> [Action] {
        self.begin(now)
        guard let index = self.appIndex[app], self.apps[index].state != .notRunning else { return self.finish() }
        let record = self.apps[index]
        let reason: TerminationReason
        if let termination = record.termination {
            reason = termination.reason
        } else {
            switch exit {
            case .exited(let status): reason = .exited(status)
            case .signaled(let signal): reason = .signaled(signal)
            }
        }
        self.becomeNotRunning(
            index,
            reason: reason,
            messages: record.termination?.messages ?? [],
            from: record.termination?.from ?? record.state,
            exit: exit
        )
        return self.finish()
    }

    /// A process app's program could not be started: it goes to `notRunning` with `spawnFailed`.
    public mutating func spawnFailed(_ app: AppID, error: String, now: Instant) -> [Action] {
        self.begin(now)
        guard let index = self.appIndex[app], self.apps[index].state != .notRunning else { return self.finish() }
        let record = self.apps[index]
        self.becomeNotRunning(
            index,
            reason: .spawnFailed(error),
            messages: [],
            from: record.termination?.from ?? record.state,
            exit: nil
        )
        return self.finish()
    }

    /// A protocol child misbehaved (A5): it is terminated without messages, reason `protocolViolation`.
    public mutating func protocolViolated(by app: AppID, now: Instant) -> [Action] {
        self.begin(now)
        guard let index = self.appIndex[app], self.apps[index].state != .notRunning,
            self.apps[index].termination == nil
        else { return self.finish() }
        self.beginTermination(index, reason: .protocolViolation, graceful: false)
        return self.finish()
    }

    /// Memory pressure persists (P3): purge one app, with no message. Suspended apps go first, longest
    /// suspended first; then background-mode apps in the background (L7), longest in the background first.
    /// Active and inactive apps are never purged.
    ///
    /// - Returns: the purged app, or nil when nothing may be purged, and the actions to run.
    public mutating func purgeRequested(now: Instant) -> (purged: AppID?, actions: [Action]) {
        self.begin(now)
        let purged = self.purgeOne()
        return (purged, self.finish())
    }

    /// Purges the first app of the P3 order, if any may be purged; returns it.
    mutating func purgeOne() -> AppID? {
        let idle = self.apps.indices.filter { self.apps[$0].termination == nil }
        let suspended = idle.filter { self.apps[$0].state == .suspended }
        let backgroundModes = idle.filter { self.apps[$0].state == .background && self.apps[$0].hasBackgroundModes }
        // Equal times keep registration order.
        let apps = self.apps
        let byAge = { (candidates: [Int]) in
            candidates.sorted { (apps[$0].stateSince, $0) < (apps[$1].stateSince, $1) }
        }
        guard let victim = byAge(suspended).first ?? byAge(backgroundModes).first else { return nil }
        self.beginTermination(victim, reason: .memoryPressure, graceful: false)
        return self.apps[victim].id
    }

    /// The scheduler is stopping (P4): every running app is terminated by the `terminate` rows, in parallel
    /// (each on its own grace). Launches are refused from now on. `allAppsStopped` tells when it is done.
    public mutating func shutdownRequested(now: Instant) -> [Action] {
        self.begin(now)
        self.stopping = true
        for index in self.apps.indices where self.apps[index].state != .notRunning && self.apps[index].termination == nil {
            self.beginTermination(index, reason: .shutdown, graceful: true)
            self.advance(index)
        }
        return self.finish()
    }
}
