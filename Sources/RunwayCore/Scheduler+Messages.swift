// Message delivery, one at a time per app (L2), and what a message's return means (L3, L4, B5).

extension Scheduler {
    /// An app's message returned: the embedded async method completed, or the protocol child acknowledged.
    ///
    /// - Parameters:
    ///   - token: the token of the `deliver` action. A token that is not the one in flight (a late return of a
    ///     message the scheduler abandoned, or a duplicate) is ignored.
    ///   - app: the app the message was delivered to.
    ///   - now: the driver's clock reading for this event; never earlier than the previous call's.
    /// - Returns: the actions to run; the next queued message, if any, is among them.
    public mutating func messageReturned(_ token: MessageToken, from app: AppID, now: Instant) -> [Action] {
        self.returnMessage(token, from: app, now: now)
        return self.finish()
    }

    /// `messageReturned(_:from:now:)` with the actions left for `finish()` or `finish(into:)`.
    mutating func returnMessage(_ token: MessageToken, from app: AppID, now: Instant) {
        self.begin(now)
        // One visit: the message in flight is taken only when the token is its own.
        guard let index = self.lookup(app),
            let message = self.apps[index].lifecycle.withRunning({ running -> Message? in
                guard let inFlight = running.outbox.inFlight, inFlight.token == token else { return nil }
                running.outbox.inFlight = nil
                return inFlight.message
            }) ?? nil
        else { return }
        self.messageCompleted(index, message)
        self.advance(index)
    }

    /// Sends queued messages while nothing is in flight, then checks whether the app should be suspended (B5).
    mutating func advance(_ index: Int) {
        if self.apps[index].descriptor.awaitsMessages {
            // One visit: the next message still due goes in flight at once. Then nothing more is sent before it
            // returns (L2), and an app with a message in flight is not suspended (B5): no `settle` (`messageSent`
            // arms timers, it never takes the message out of flight).
            let token = MessageToken(rawValue: self.nextToken)
            if let message = Self.sendNext(in: &self.apps[index].lifecycle, token: token, app: index, self.taskTable) {
                self.nextToken += 1
                self.messageSent(index, message)
                self.actions.append(.deliver(self.apps[index].id, message, token))
                return
            }
        } else {
            // A plain process is never waited for (L2, A4): its messages complete when "sent". It is told nothing,
            // but the handler of each of its tasks (begun on its behalf) is called all the same (B4).
            while let message = self.nextMessage(index) {
                if case .backgroundTaskWillExpire(let id) = message {
                    self.actions.append(.callExpirationHandler(self.apps[index].id, id))
                }
                self.messageCompleted(index, message)
            }
        }
        self.settle(index)
    }

    /// Puts the app's next queued message in flight with `token`, if it runs and nothing is in flight, skipping the
    /// expiration message of a task that ended after it was queued (B4, B8); returns it, or nil. One visit in place;
    /// static, with the lifecycle and the task table as two arguments, so that the table is read without a copy.
    private static func sendNext(
        in lifecycle: inout Lifecycle,
        token: MessageToken,
        app index: Int,
        _ tasks: TaskTable
    ) -> Message? {
        lifecycle.withRunning { running -> Message? in
            guard running.outbox.inFlight == nil else { return nil }
            while let message = running.outbox.popNext() {
                if case .backgroundTaskWillExpire(let id) = message, tasks.owner(of: id) != index { continue }
                running.outbox.inFlight = (token, message)
                return message
            }
            return nil
        } ?? nil
    }

    /// The next message to send, if nothing is in flight. The handler of a task that ended after its warning
    /// was queued is not called (B4, B8).
    private mutating func nextMessage(_ index: Int) -> Message? {
        while let message = self.apps[index].lifecycle.withRunning({ running -> Message? in
            running.outbox.inFlight == nil ? running.outbox.popNext() : nil
        }) ?? nil {
            if case .backgroundTaskWillExpire(let id) = message, self.taskTable.owner(of: id) != index { continue }
            return message
        }
        return nil
    }

    /// Arms the grace that bounds a message (L3, L4).
    mutating func messageSent(_ index: Int, _ message: Message) {
        // A switch on the message first: the app's state is read only for the two messages that have a grace.
        switch message {
        case .didEnterBackground:
            // L3: the grace runs from the send, and suspension waits for the return (B5).
            guard case .background(let period, _) = self.apps[index].lifecycle else { return }
            if case .awaiting(let stale?) = period.entry { self.disarm([stale]) }
            let grace = self.arm(
                .backgroundEntryGrace,
                app: index,
                at: self.lastNow + self.settings.backgroundEntryGrace
            )
            self.apps[index].lifecycle.withBackground { period, _ in period.entry = .awaiting(grace: grace) }
        case .willTerminate:
            // L4: willTerminate gets the full grace from when it is sent, and the SIGKILL of a process app falls
            // at the end of that same grace.
            guard var termination = self.apps[index].lifecycle.termination,
                case .messaging(let grace) = termination.phase
            else { return }
            self.disarm([grace])
            let deadline = self.lastNow + self.settings.terminationGrace
            termination.phase = .messaging(grace: self.arm(.termination, app: index, at: deadline))
            termination.killAt = deadline
            self.setTermination(index, termination)
        default:
            break
        }
    }

    mutating func messageCompleted(_ index: Int, _ message: Message) {
        switch message {
        case .didFinishLaunching:
            // L9: the launch is done: inactive -> active. R4's window starts.
            self.restorationLaunchReturned(index)
            self.launchFinished(index)
        case .didEnterBackground:
            // B5/L3: the entry is done; the grace no longer matters.
            if case .background = self.apps[index].lifecycle { self.entryReturned(index) }
        case .willTerminate:
            // L4: the messages are done: stop the app.
            guard let termination = self.apps[index].lifecycle.termination, case .messaging = termination.phase
            else { return }
            self.finishTerminationMessages(index, termination)
        default:
            break
        }
    }

    /// `didEnterBackground` returned (or no longer matters): cancel the L3 grace and stop holding suspension
    /// back for it (B5).
    mutating func entryReturned(_ index: Int) {
        let grace = self.apps[index].lifecycle.withBackground { period, _ -> DeadlineHandle? in
            defer { period.entry = .returned }
            if case .awaiting(let grace) = period.entry { return grace }
            return nil
        }
        if let grace = grace ?? nil { self.disarm([grace]) }
    }

    /// B5: a background app with no task, whose `didEnterBackground` returned and with nothing in flight, is
    /// suspended at once (or terminated, E1). Background-mode apps stay (L7), and so does an app with a background
    /// wake-up not yet completed (W4).
    mutating func settle(_ index: Int) {
        // Read in place (`withBackground` moves the payload out and back; a pattern binding would copy it).
        let idle = self.apps[index].lifecycle.withBackground { period, running in
            period.deadline != nil && !period.isAwaitingEntry && period.wakes.isEmpty && running.tasks.isEmpty
                && running.outbox.isIdle
        }
        guard idle == true else { return }
        self.suspendOrExit(index, cause: .noOutstandingTasks)
    }
}
