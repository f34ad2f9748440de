// Message delivery, one at a time per app (L2), and what a message's return means (L3, L4, B5).

extension Scheduler {
    /// An app's message returned: the embedded async method completed, or the protocol child acknowledged.
    ///
    /// - Parameters:
    ///   - token: the token of the `deliver` action. A token that is not the one in flight (a late return of a
    ///     message the scheduler abandoned, or a duplicate) is ignored.
    /// - Returns: the actions to run; the next queued message, if any, is among them.
    public mutating func messageReturned(_ token: MessageToken, from app: AppID, now: Instant) -> [Action] {
        self.begin(now)
        guard let index = self.appIndex[app],
            let inFlight = self.apps[index].outbox.inFlight,
            inFlight.token == token
        else { return self.finish() }
        self.apps[index].outbox.inFlight = nil
        self.messageCompleted(index, inFlight.message)
        self.advance(index)
        return self.finish()
    }

    /// Sends queued messages while nothing is in flight, then checks whether the app should be suspended.
    mutating func advance(_ index: Int) {
        while self.apps[index].outbox.inFlight == nil, let message = self.apps[index].outbox.pending.popFirst() {
            // The handler of a task that ended after its warning was queued is not called (B4, B8).
            if case .backgroundTaskWillExpire(let id) = message, self.taskTable.owner(of: id) != index { continue }
            if self.apps[index].descriptor.awaitsMessages {
                let token = MessageToken(rawValue: self.nextToken)
                self.nextToken += 1
                self.apps[index].outbox.inFlight = (token, message)
                self.messageSent(index, message)
                self.actions.append(.deliver(self.apps[index].id, message, token))
            } else {
                // A plain process is never waited for (L2, A4): its messages complete when "sent".
                self.messageCompleted(index, message)
            }
        }
        self.settle(index)
    }

    /// Arms the grace that bounds a message (L3, L4).
    mutating func messageSent(_ index: Int, _ message: Message) {
        switch message {
        case .didEnterBackground where self.apps[index].termination == nil:
            let deadline = self.lastNow + self.settings.backgroundEntryGrace
            self.apps[index].entryGraceTimer = self.arm(.backgroundEntryGrace, app: index, at: deadline)
        case .willTerminate:
            // L4: willTerminate gets the full grace from when it is sent.
            guard var termination = self.apps[index].termination, termination.phase == .messaging else { return }
            disarm(&termination.timer, in: &self.timers)
            termination.timer = self.arm(.termination, app: index, at: self.lastNow + self.settings.terminationGrace)
            self.apps[index].termination = termination
        default:
            break
        }
    }

    mutating func messageCompleted(_ index: Int, _ message: Message) {
        switch message {
        case .didEnterBackground:
            self.stopAwaitingBackgroundEntry(index)
        case .willTerminate:
            if self.apps[index].termination?.phase == .messaging {
                self.finishTerminationMessages(index)
            }
        default:
            break
        }
    }

    /// B5: a background app with no task, whose `didEnterBackground` returned and with nothing in flight, is
    /// suspended at once (or terminated, E1). Background-mode apps stay (L7).
    mutating func settle(_ index: Int) {
        let record = self.apps[index]
        guard record.state == .background,
            record.termination == nil,
            !record.hasBackgroundModes,
            !record.awaitingBackgroundEntry,
            record.tasks.isEmpty,
            record.outbox.isIdle
        else { return }
        self.suspendOrExit(index, cause: .noOutstandingTasks)
    }

    /// Forgets what is queued or in flight for an app that stops taking messages. Notifications are kept for
    /// delivery after resume (N1); lifecycle and expiration messages are dropped. A late return of the
    /// abandoned in-flight message is ignored (its token no longer matches).
    mutating func abandonOutbox(_ index: Int) {
        let limit = self.settings.notificationQueueLimit
        var outbox = self.apps[index].outbox
        let unsent = (outbox.inFlight.map { [$0.message] } ?? []) + outbox.pending.elements
        outbox = Outbox()
        self.apps[index].outbox = outbox
        for case .notification(let name, let payload) in unsent {
            _ = self.apps[index].heldNotifications.post(name: name, payload: payload, limit: limit)
        }
        self.stopAwaitingBackgroundEntry(index)
    }

    /// `didEnterBackground` no longer matters (returned, abandoned, foreground, termination): cancel the L3
    /// grace and stop holding suspension back for it (B5).
    mutating func stopAwaitingBackgroundEntry(_ index: Int) {
        disarm(&self.apps[index].entryGraceTimer, in: &self.timers)
        self.apps[index].awaitingBackgroundEntry = false
    }

    // MARK: Notifications (N1) and memory warnings (P3)

    /// Posts a host notification to an app (N1).
    ///
    /// Running apps get it in order with their other messages; a pending notification of the same name is
    /// replaced (last payload wins). For a suspended app it is held, coalesced by name, and delivered after
    /// `willEnterForeground` and before `didBecomeActive`. At most `notificationQueueLimit` names are held;
    /// a new name beyond that evicts the oldest, whose name is returned.
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
        let record = self.apps[index]
        guard record.state != .notRunning, record.termination == nil else {
            throw SchedulerError(.notRunning, app: app, state: record.state, terminating: record.termination != nil)
        }
        let limit = self.settings.notificationQueueLimit
        var evicted: String?
        if record.state == .suspended {
            evicted = self.apps[index].heldNotifications.post(name: name, payload: payload, limit: limit)
        } else {
            evicted = self.queueNotification(index, name: name, payload: payload, limit: limit)
            self.advance(index)
        }
        return (evicted, self.finish())
    }

    /// Coalesces with a pending (unsent) notification of the same name; bounds pending notifications.
    mutating func queueNotification(_ index: Int, name: String, payload: String, limit: Int) -> String? {
        var pending = Array(self.apps[index].outbox.pending.elements)
        defer { self.apps[index].outbox.pending = MessageQueue(pending) }
        if let position = pending.firstIndex(where: {
            if case .notification(name, _) = $0 { return true }
            return false
        }) {
            pending[position] = .notification(name: name, payload: payload)
            return nil
        }
        var evicted: String?
        let queued = pending.indices.filter {
            if case .notification = pending[$0] { return true }
            return false
        }
        if queued.count >= limit, let oldest = queued.first, case .notification(let oldName, _) = pending[oldest] {
            pending.remove(at: oldest)
            evicted = oldName
        }
        pending.append(.notification(name: name, payload: payload))
        return evicted
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
            let record = self.apps[index]
            guard [.active, .inactive, .background].contains(record.state), record.termination == nil else { continue }
            let alreadyQueued =
                record.outbox.pending.contains(.didReceiveMemoryWarning)
                || record.outbox.inFlight?.message == .didReceiveMemoryWarning
            if !alreadyQueued {
                self.apps[index].outbox.pending.append(.didReceiveMemoryWarning)
            }
            self.advance(index)
        }
    }
}
