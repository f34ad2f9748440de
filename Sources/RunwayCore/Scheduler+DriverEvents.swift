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
        var suspended: [Int] = []
        var backgroundModes: [Int] = []
        for index in self.apps.indices {
            switch self.apps[index].lifecycle {
            case .suspended: suspended.append(index)
            case .background(let period, _) where period.deadline == nil: backgroundModes.append(index)
            case .notRunning, .foreground, .background, .terminating: continue
            }
        }
        // Longest in its state first; equal times keep registration order.
        let apps = self.apps
        let oldest = { (candidates: [Int]) in candidates.min { (apps[$0].stateSince, $0) < (apps[$1].stateSince, $1) } }
        guard let victim = oldest(suspended) ?? oldest(backgroundModes) else { return nil }
        self.beginTermination(victim, reason: .memoryPressure, graceful: false)
        return self.apps[victim].id
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
