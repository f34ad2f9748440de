// Host notifications (N1) and memory warnings (P3).

extension Scheduler {
    /// Posts a host notification to an app (N1).
    ///
    /// Running apps get it in order with their other messages; a waiting notification of the same name is
    /// replaced (last payload wins). For a suspended app it is held, coalesced by name, and delivered after
    /// `willEnterForeground` and before `didBecomeActive`. At most `notificationQueueLimit` names wait; a new
    /// name beyond that evicts the oldest, whose name is returned. Both cases are one `NotificationQueue`.
    ///
    /// - Throws: `unknownApp`; `notRunning` for an app that is not running or is terminating.
    public mutating func notificationPosted(
        name: String,
        payload: String,
        to app: AppID,
        now: Instant
    ) throws(SchedulerError) -> (evicted: String?, actions: [Action]) {
        self.begin(now)
        let index = try self.index(of: app)
        let limit = self.settings.notificationQueueLimit
        let evicted: String?
        switch self.apps[index].lifecycle {
        case .suspended:
            // N1: held for the resume.
            evicted =
                self.apps[index].lifecycle.withHeld { $0.post(name: name, payload: payload, limit: limit).evicted }
                ?? nil
        case .foreground, .background:
            // Delivered in order with the app's other messages.
            evicted =
                self.apps[index].lifecycle.withRunning { $0.outbox.post(name: name, payload: payload, limit: limit) }
                ?? nil
            self.advance(index)
        case .notRunning, .terminating:
            throw self.notRunningError(index)
        }
        return (evicted, self.finish())
    }

    /// Memory pressure began (P3): every running app (active, inactive, background; not suspended, not
    /// terminating) is sent `didReceiveMemoryWarning`, at most one pending per app.
    public mutating func memoryWarningRaised(now: Instant) -> [Action] {
        self.begin(now)
        self.warnRunningApps()
        return self.finish()
    }

    /// An operator's memory warning for one app (`runway memory-warning APP`): the app is sent
    /// `didReceiveMemoryWarning` by the rule of P3 (`warnRunningApps`), at most one pending.
    ///
    /// - Throws: `unknownApp`; `notRunning` when the app is not running, suspended (a suspended app is sent
    ///   nothing, P3) or terminating. Nothing changes then.
    public mutating func memoryWarningRaised(for app: AppID, now: Instant) throws(SchedulerError) -> [Action] {
        self.begin(now)
        let index = try self.index(of: app)
        guard self.warn(index) else { throw self.notRunningError(index) }
        return self.finish()
    }

    /// Queues `didReceiveMemoryWarning` for every running app, at most one pending per app (P3).
    mutating func warnRunningApps() {
        for index in self.apps.indices { self.warn(index) }
    }

    /// Queues `didReceiveMemoryWarning` for one app if it is running (active, inactive, background; not suspended,
    /// not terminating), unless one is already queued or in flight (P3). Returns false, changing nothing, when the
    /// app is not running.
    @discardableResult
    private mutating func warn(_ index: Int) -> Bool {
        switch self.apps[index].lifecycle {
        case .foreground, .background:
            self.apps[index].lifecycle.withRunning { running in
                let alreadyQueued =
                    running.outbox.isQueued(.didReceiveMemoryWarning)
                    || running.outbox.inFlight?.message == .didReceiveMemoryWarning
                if !alreadyQueued { running.outbox.append([.didReceiveMemoryWarning]) }
            }
            self.advance(index)
            return true
        case .notRunning, .suspended, .terminating:
            return false
        }
    }

    /// `notRunning` for an app that cannot take a notification or a memory warning now, with its state.
    private func notRunningError(_ index: Int) -> SchedulerError {
        let record = self.apps[index]
        return SchedulerError(
            .notRunning,
            app: record.id,
            state: record.state,
            terminating: record.lifecycle.isTerminating
        )
    }
}
