// KeepAlive: restarting an app after an exit Runway did not cause, with exponential backoff and a crash-loop state
// (RestartPolicy.swift; Docs/Decisions/0099 to 0102).
//
// The rules, all on the scheduler's clock:
// - An app with a `RestartPolicy` that reaches `notRunning` for a reason the policy names (never one of Runway's
//   own) is launched again, into its launch state (`AppDescriptor.launchCommand`), `delay` after the exit.
// - A failure counts towards the backoff when its run lasted less than `restartBackoffReset`; a longer run starts
//   the count again. The delay is `throttleInterval * 2^(failures - 1)`, at most `restartBackoffLimit`.
// - From `crashLoopThreshold` consecutive failures on, the app is crash-looping; it is still restarted, at the
//   backoff limit, until an operator steps in (kubelet does the same).
// - Restarts start at least `restartSpacing` apart, over every app: a restart due before the next free turn is
//   moved to that turn (and the turn after it is the next one free), so they start in the order they came due,
//   none dropped, one spawn per turn of the loop at most.
// - An end that is not a restart condition, an operator's `terminate` (which also cancels a pending restart) and
//   an operator's `launch` (which replaces it) reset the count and the crash-loop state. Shutdown cancels every
//   pending restart.

extension Scheduler {
    /// The restart bookkeeping of an app, or nil for an unknown app. O(1).
    public func restartStatus(of app: AppID) -> RestartStatus? {
        self.appIndex[app].map { self.apps[$0].restart.status }
    }

    /// The app just ended for `reason` (called by `becomeNotRunning` before it publishes): arms its restart if its
    /// policy asks for one, and returns it for the transition event.
    mutating func considerRestart(_ index: Int, reason: TerminationReason) -> PendingRestart? {
        var record = self.apps[index].restart
        let ranFor = record.status.runStarted.map { self.lastNow - $0 }
        record.status.runStarted = nil
        guard let policy = self.apps[index].descriptor.keepAlive, !self.stopping, policy.restarts(after: reason) else {
            record.status.consecutiveFailures = 0
            record.status.crashLooping = false
            self.setRestart(index, record)
            return nil
        }
        if let ranFor, ranFor >= self.settings.restartBackoffReset { record.status.consecutiveFailures = 0 }
        record.status.consecutiveFailures += 1
        let failures = record.status.consecutiveFailures
        record.status.crashLooping = failures >= self.settings.crashLoopThreshold
        let at = self.lastNow + policy.delay(afterFailures: failures, limit: self.settings.restartBackoffLimit)
        let pending = PendingRestart(
            at: at,
            attempt: record.status.restarts + 1,
            consecutiveFailures: failures,
            crashLooping: record.status.crashLooping
        )
        record.status.pending = pending
        record.timer = self.arm(.restart, app: index, at: at)
        self.setRestart(index, record)
        return pending
    }

    /// The restart timer fired: launch the app into its launch state, cause `restart(attempt)`.
    mutating func restartDue(_ index: Int, handle: DeadlineHandle) {
        guard self.apps[index].restart.timer == handle, var pending = self.apps[index].restart.status.pending,
            self.apps[index].lifecycle.isNotRunning, !self.stopping
        else { return }
        // Paced: a restart due before its turn waits for it; the turn is taken now, so later ones queue behind.
        if !self.apps[index].restart.paced, self.lastNow < self.restartSlot {
            pending.at = self.restartSlot
            self.restartSlot = self.restartSlot + self.settings.restartSpacing
            self.apps[index].restart.status.pending = pending
            self.apps[index].restart.timer = self.arm(.restart, app: index, at: pending.at)
            self.apps[index].restart.paced = true
            return
        }
        if !self.apps[index].restart.paced { self.restartSlot = self.lastNow + self.settings.restartSpacing }
        self.apps[index].restart.paced = false
        self.apps[index].restart.timer = nil
        self.apps[index].restart.status.pending = nil
        self.apps[index].restart.status.restarts = pending.attempt
        let inBackground = self.apps[index].descriptor.launchCommand == .launchInBackground
        let published = self.actions.count
        self.launch(index, inBackground: inBackground)
        // The launch publishes `command(launch)`; a restart is no operator command, so its cause says so.
        for position in published..<self.actions.count {
            guard case .publish(var event) = self.actions[position], event.app == self.apps[index].id else { continue }
            event.cause = .restart(pending.attempt)
            self.actions[position] = .publish(event)
        }
        if self.apps[index].launching != nil { self.apps[index].launching = .restart(pending.attempt) }
        self.advance(index)
    }

    /// Called by `launch` for every start: marks the run's start; a start that replaces a pending restart is an
    /// operator's, so the pending restart is cancelled and the failure count and crash-loop state reset.
    mutating func runStarting(_ index: Int) {
        if self.apps[index].restart.status.pending != nil { self.cancelRestart(index) }
        self.apps[index].restart.status.runStarted = self.lastNow
        self.apps[index].launching = nil
    }

    /// An operator's `terminate` of an app waiting for a restart cancels the restart; returns true when it did
    /// (the command is then done: the app stays `notRunning`).
    mutating func terminateCancelsRestart(_ command: Command, _ index: Int) -> Bool {
        guard command == .terminate, self.apps[index].lifecycle.isNotRunning,
            self.apps[index].restart.status.pending != nil
        else { return false }
        self.cancelRestart(index)
        return true
    }

    /// Shutdown (P4): no app is restarted any more.
    mutating func cancelAllRestarts() {
        for index in self.apps.indices where self.apps[index].restart.status.pending != nil {
            self.cancelRestart(index)
        }
    }

    /// Drops the pending restart and resets the failure count and crash-loop state (the restart count stays).
    private mutating func cancelRestart(_ index: Int) {
        self.disarm(self.apps[index].restart.timer.map { [$0] } ?? [])
        self.apps[index].restart.timer = nil
        self.apps[index].restart.paced = false
        self.apps[index].restart.status.pending = nil
        self.apps[index].restart.status.consecutiveFailures = 0
        if self.apps[index].restart.status.crashLooping {
            self.apps[index].restart.status.crashLooping = false
            self.crashLoopingApps -= 1
        }
    }

    /// Stores the app's restart record, keeping `crashLoopingApps` in step with its crash-loop state.
    private mutating func setRestart(_ index: Int, _ record: RestartRecord) {
        switch (self.apps[index].restart.status.crashLooping, record.status.crashLooping) {
        case (false, true): self.crashLoopingApps += 1
        case (true, false): self.crashLoopingApps -= 1
        case (false, false), (true, true): break
        }
        self.apps[index].restart = record
    }
}

extension AppDescriptor {
    /// How the app is launched at load (`RunAtLoad`) and by a restart: `launchInBackground` for an app with
    /// `UIBackgroundModes` (as iOS launches such apps into the background), `launch` (the foreground) otherwise.
    public var launchCommand: Command {
        self.backgroundModes.isEmpty ? .launch : .launchInBackground
    }
}
