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
        case .suspended(var held):
            // N1: held for the resume.
            self.apps[index].lifecycle = .modifying
            evicted = held.post(name: name, payload: payload, limit: limit).evicted
            self.apps[index].lifecycle = .suspended(held: held)
        case .foreground, .background:
            // Delivered in order with the app's other messages.
            evicted =
                self.apps[index].lifecycle.withRunning { $0.outbox.post(name: name, payload: payload, limit: limit) }
                ?? nil
            self.advance(index)
        case .notRunning, .terminating:
            let record = self.apps[index]
            throw SchedulerError(
                .notRunning,
                app: app,
                state: record.state,
                terminating: record.lifecycle.isTerminating
            )
        case .modifying:
            preconditionFailure("app=\(app) is being modified")
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

    /// Queues `didReceiveMemoryWarning` for every running app, at most one pending per app (P3).
    mutating func warnRunningApps() {
        for index in self.apps.indices {
            switch self.apps[index].lifecycle {
            case .foreground, .background:
                self.apps[index].lifecycle.withRunning { running in
                    let outbox = running.outbox
                    let alreadyQueued =
                        outbox.isQueued(.didReceiveMemoryWarning)
                        || outbox.inFlight?.message == .didReceiveMemoryWarning
                    if !alreadyQueued { running.outbox.append([.didReceiveMemoryWarning]) }
                }
                self.advance(index)
            case .notRunning, .suspended, .terminating:
                continue
            case .modifying:
                preconditionFailure("app=\(self.apps[index].id) is being modified")
            }
        }
    }
}
