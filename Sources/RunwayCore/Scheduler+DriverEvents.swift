// What the driver reports about process apps (L6, A5), memory purges (P3) and the scheduler's stop (P4).

extension Scheduler {
    /// A process app's child exited (reaped by the driver). During a termination the reason is the
    /// termination's; otherwise it is `exited(status)` or `signaled(signal)` (L6). Its tasks end; nothing
    /// else is disturbed. A report for an app that is not running is ignored.
    public mutating func processExited(_ app: AppID, exit: ProcessExit, now: Instant) -> [Action] {
        self.begin(now)
        guard let index = self.appIndex[app], !self.apps[index].lifecycle.isNotRunning else { return self.finish() }
        let reason: TerminationReason
        switch exit {
        case .exited(let status): reason = .exited(status)
        case .signaled(let signal): reason = .signaled(signal)
        }
        self.becomeNotRunning(index, exit: exit, otherwise: reason)
        return self.finish()
    }

    /// A process app's program could not be started: it goes to `notRunning` with `spawnFailed`.
    public mutating func spawnFailed(_ app: AppID, error: String, now: Instant) -> [Action] {
        self.begin(now)
        guard let index = self.appIndex[app], !self.apps[index].lifecycle.isNotRunning else { return self.finish() }
        // The failure is the reason even when a termination had begun.
        if var termination = self.apps[index].lifecycle.termination {
            termination.reason = .spawnFailed(error)
            termination.messages = []
            self.setTermination(index, termination)
        }
        self.becomeNotRunning(index, exit: nil, otherwise: .spawnFailed(error))
        return self.finish()
    }

    /// A protocol child misbehaved (A5): it is terminated without messages, reason `protocolViolation`.
    public mutating func protocolViolated(by app: AppID, now: Instant) -> [Action] {
        self.begin(now)
        guard let index = self.appIndex[app] else { return self.finish() }
        switch self.apps[index].lifecycle {
        case .foreground, .background, .suspended:
            self.beginTermination(index, reason: .protocolViolation, graceful: false)
        case .notRunning, .terminating:
            // Gone or going already.
            break
        }
        return self.finish()
    }

    /// Memory pressure persists (P3): purge one app, with no message, the first of the P8 order: suspended apps,
    /// longest suspended first; then apps in the background, those doing no work before those holding a task or an
    /// uncompleted wake-up, before background-mode apps (L7), each longest in the background first. Active and
    /// inactive apps are never purged.
    ///
    /// - Returns: the purged app, or nil when nothing may be purged, and the actions to run.
    public mutating func purgeRequested(now: Instant) -> (purged: AppID?, actions: [Action]) {
        self.begin(now)
        let purged = self.purgeOne()
        return (purged, self.finish())
    }

    /// The scheduler is stopping (P4): every running app is terminated by the `terminate` rows, in parallel
    /// (each on its own grace). Launches are refused from now on. `allAppsStopped` tells when it is done.
    public mutating func shutdownRequested(now: Instant) -> [Action] {
        self.begin(now)
        self.stopping = true
        self.cancelAllRestarts()
        for index in self.apps.indices {
            switch self.apps[index].lifecycle {
            case .foreground, .background, .suspended:
                self.beginTermination(index, reason: .shutdown, graceful: true)
                self.advance(index)
            case .notRunning, .terminating:
                continue
            }
        }
        return self.finish()
    }
}
