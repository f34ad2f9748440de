// Background wake-ups (Behaviour.md W1-W6): a fetch or a remote notification from the host or an operator resumes a
// suspended app, or launches a not-running one, into the background with a fresh short budget, and the app is
// suspended again when it calls completion or when that budget runs out. The budget is an ordinary background
// period (B3-B6), so its warning and deadline run through the timers of Scheduler+Timers.swift.

extension Scheduler {
    /// Wakes an app in the background for `reason` (W1).
    ///
    /// - notRunning: launched into the background (a process app is spawned): `didFinishLaunching`, then the
    ///   wake-up; no `didEnterBackground`. suspended: resumed; held notifications (N1), then the wake-up.
    ///   Both start a background period of `backgroundWakeBudget` (the app's override first) and publish a
    ///   transition to `background` with cause `backgroundWake(reason)`.
    /// - background: the wake-up is queued with the app's messages and its deadline moves to at least
    ///   `now + backgroundWakeBudget` (W2), except for `refresh`, which leaves it (W7); no transition. An app with
    ///   background modes (L7) just gets it.
    /// - foreground: `remoteNotification` and `refresh` are queued with no budget change (W3); `fetch` is refused.
    ///
    /// The app stays in the background until every wake-up it was given in this period is completed
    /// (`backgroundWakeCompleted`) and B5 holds, or until the deadline (B6), whichever is first (W4).
    ///
    /// - Parameters:
    ///   - app: The app to wake.
    ///   - reason: Why it is woken: `fetch`, `remoteNotification` or `refresh`.
    ///   - payload: Opaque text for the app (a remote notification's JSON); at most
    ///     `backgroundWakePayloadByteLimit` UTF-8 bytes.
    ///   - now: The driver's reading for this turn.
    /// - Returns: The wake-up's token, which the app passes to completion, and the actions to run.
    /// - Throws: `unknownApp`; `payloadTooLarge` and `tooManyWakes` naming their limit; `notWakeable` (W3);
    ///   `stopping` during shutdown. Nothing changes when it throws.
    public mutating func backgroundWakeRequested(
        _ reason: WakeReason,
        payload: String,
        for app: AppID,
        now: Instant
    ) throws(SchedulerError) -> (token: WakeToken, actions: [Action]) {
        self.begin(now)
        let index = try self.index(of: app)
        let limit = self.settings.backgroundWakePayloadByteLimit
        guard payload.utf8.count <= limit else {
            throw SchedulerError(.payloadTooLarge, app: app, state: self.apps[index].state, limit: limit)
        }
        if let refusal = self.wakeRefusal(index, reason) { throw refusal }
        let token = self.wake(index, reason, payload: payload)
        return (token, self.finish())
    }

    /// The app calls completion for a wake-up (W4): once every wake-up of its background period is completed, the
    /// app is suspended by B5 (no task, nothing in flight), or terminated by E1.
    ///
    /// A token that is not outstanding for this app (already completed, expired with its period, delivered in
    /// the foreground, or another app's) is ignored: completion may be called late, as on iOS.
    ///
    /// - Throws: `unknownApp`; `unknownWake` for a token never issued. Nothing changes when it throws.
    public mutating func backgroundWakeCompleted(
        _ token: WakeToken,
        by app: AppID,
        now: Instant
    ) throws(SchedulerError) -> [Action] {
        self.begin(now)
        let index = try self.index(of: app)
        guard token.rawValue != 0, token.rawValue < self.nextWakeToken else {
            throw SchedulerError(.unknownWake, app: app, state: self.apps[index].state, wake: token)
        }
        let held = self.apps[index].lifecycle.withBackground { period, _ -> Bool in
            guard let position = period.wakes.firstIndex(of: token) else { return false }
            period.wakes.remove(at: position)
            return true
        }
        if held == true { self.advance(index) }
        return self.finish()
    }

    /// Why the app cannot be woken for `reason` now, or nil (W3, W5).
    func wakeRefusal(_ index: Int, _ reason: WakeReason) -> SchedulerError? {
        let record = self.apps[index]
        let refused = SchedulerError(
            .notWakeable,
            app: record.id,
            state: record.state,
            terminating: record.lifecycle.isTerminating,
            wakeReason: reason
        )
        guard !self.stopping else { return SchedulerError(.stopping, app: record.id, state: record.state) }
        switch record.lifecycle {
        case .terminating:
            return refused
        case .foreground(_, let running):
            // W3: a fetch runs only in the background; the others reach a foreground app as they come, within W5.
            if reason == .fetch { return refused }
            return self.wakeLimitRefusal(index, outstanding: Self.waitingWakes(running.outbox))
        case .notRunning, .suspended:
            // E1, immediate style: the app never enters the background.
            return self.exitsImmediately(index) ? refused : nil
        case .background(let period, let running):
            // W5: held wake-ups in a budgeted period; for a background-mode app (L7), those it has not handled.
            let outstanding = period.deadline != nil ? period.wakes.count : Self.waitingWakes(running.outbox)
            return self.wakeLimitRefusal(index, outstanding: outstanding)
        }
    }

    /// `tooManyWakes` when `outstanding` is at `backgroundWakeLimitPerApp` (W5), else nil.
    private func wakeLimitRefusal(_ index: Int, outstanding: Int) -> SchedulerError? {
        let limit = self.settings.backgroundWakeLimitPerApp
        guard outstanding >= limit else { return nil }
        return SchedulerError(.tooManyWakes, app: self.apps[index].id, state: self.apps[index].state, limit: limit)
    }

    /// The wake-ups queued for the app or in flight, not yet handled (W5): what an app that holds nothing (in the
    /// foreground, or with background modes) makes the scheduler keep. O(messages queued).
    private static func waitingWakes(_ outbox: Outbox) -> Int {
        var count = 0
        if case .backgroundWake? = outbox.inFlight?.message { count += 1 }
        for case .message(.backgroundWake) in outbox.pending.elements { count += 1 }
        return count
    }

    /// Performs a wake-up the refusal rules allowed; returns its token.
    mutating func wake(_ index: Int, _ reason: WakeReason, payload: String) -> WakeToken {
        let token = WakeToken(rawValue: self.nextWakeToken)
        self.nextWakeToken += 1
        let message = Message.backgroundWake(reason: reason, payload: payload, token: token)
        let id = self.apps[index].id
        switch self.apps[index].lifecycle {
        case .notRunning:
            // W1: launched into the background for the event, as iOS does: no didEnterBackground. It restores as
            // any launch does (R2).
            self.restorationStarting(index)
            if self.apps[index].descriptor.isProcess { self.actions.append(.spawn(id)) }
            let messages: [Message] = [.didFinishLaunching, message]
            self.enterWakePeriod(index, RunningApp(messages: messages), token: token)
            self.publish(index, from: .notRunning, to: .background, cause: .backgroundWake(reason), messages: messages)
        case .suspended(let held):
            // W1: resumed; notifications held while suspended (N1) come first, as the app runs again.
            self.actions.append(.resume(id))
            let running = RunningApp(outbox: Outbox(before: [], held: held, after: [message]))
            self.enterWakePeriod(index, running, token: token)
            let messages = held.messages + [message]
            self.publish(index, from: .suspended, to: .background, cause: .backgroundWake(reason), messages: messages)
        case .background:
            // W2: one more wake-up in the same period; the deadline is at least a fresh wake budget away, except
            // for a refresh (W7), which the app asked for itself: it cannot lengthen the period it runs in.
            self.apps[index].lifecycle.withRunning { $0.outbox.append([message]) }
            self.holdWake(index, token, extendingDeadline: reason != .refresh)
        case .foreground:
            // W3: delivered with the app's other messages; nothing to hold in the foreground.
            self.apps[index].lifecycle.withRunning { $0.outbox.append([message]) }
        case .terminating:
            preconditionFailure("Waking \(id) from \(self.apps[index].state)")
        }
        self.advance(index)
        return token
    }

    /// The wake budget of the app: its own, else the scheduler's (W2).
    private func wakeBudget(_ index: Int) -> TimeSpan {
        self.apps[index].descriptor.backgroundWakeBudget ?? self.settings.backgroundWakeBudget
    }

    /// A new background period for a wake-up: the wake budget (B3 with W2's span), its warning (B4), no entry
    /// message to wait for, and the wake-up held until completed. Background-mode apps get no budget (L7).
    private mutating func enterWakePeriod(_ index: Int, _ running: RunningApp, token: WakeToken) {
        let now = self.lastNow
        guard !self.apps[index].hasBackgroundModes else {
            self.enter(
                index,
                .background(BackgroundPeriod(entered: now, budget: .unlimited, entry: .returned), running)
            )
            return
        }
        let deadline = now + self.wakeBudget(index)
        let warning = self.arm(
            .expirationWarning,
            app: index,
            at: self.settings.warningInstant(deadline: deadline, notBefore: now)
        )
        let notice = self.armNotice(index, deadline: deadline, notBefore: now)
        let timer = self.arm(.budgetDeadline, app: index, at: deadline)
        let period = BackgroundPeriod(
            entered: now,
            budget: .limited(deadline: deadline, timer: timer, warning: .armed(warning)),
            entry: .returned,
            notice: notice,
            wakes: [token]
        )
        self.enter(index, .background(period, running))
    }

    /// W2: a wake-up of an app already in the background is held, and, when `extendingDeadline`, the deadline moves
    /// to `now + wake budget` if that is later (never earlier). A warning that already fired in this period does not
    /// fire again (B4).
    private mutating func holdWake(_ index: Int, _ token: WakeToken, extendingDeadline: Bool) {
        guard let deadline = self.apps[index].lifecycle.period?.deadline else { return }
        self.apps[index].lifecycle.withBackground { period, _ in period.wakes.append(token) }
        guard extendingDeadline else { return }
        let fresh = self.lastNow + self.wakeBudget(index)
        guard fresh > deadline else { return }
        self.moveDeadline(
            index,
            to: fresh,
            warningAt: self.settings.warningInstant(deadline: fresh, notBefore: self.lastNow)
        )
    }
}
