// Commands (SPEC section 2 table, L1) and the foreground/background transitions they cause.

extension Scheduler {
    /// Applies a command to one app (L1).
    ///
    /// - Parameters:
    ///   - command: what the host or operator asks.
    ///   - app: the app's bundle identifier.
    ///   - now: the driver's reading for this loop turn; never earlier than the previous call's.
    /// - Returns: the actions to run, in order.
    /// - Throws: `unknownApp`; `illegalCommand` naming the app, its state and the command when the command
    ///   is not legal now (including any command to a terminating app); `stopping` for a launch during
    ///   shutdown. Nothing changes when it throws. `activate` on an active app is a no-op, not an error.
    public mutating func commandReceived(_ command: Command, for app: AppID, now: Instant) throws(SchedulerError) -> [Action] {
        self.begin(now)
        let index = try self.index(of: app)
        let record = self.apps[index]
        let illegal = SchedulerError(
            .illegalCommand,
            app: app,
            state: record.state,
            terminating: record.termination != nil,
            command: command
        )
        guard record.termination == nil else { throw illegal }
        let exitsImmediately = self.exitsImmediately(record)

        switch (command, record.state) {
        case (.launch, .notRunning), (.launchInBackground, .notRunning):
            // notRunning -> active (via inactive), or -> background for `launch --background`.
            guard !self.stopping else { throw SchedulerError(.stopping, app: app, state: record.state) }
            if command == .launchInBackground && exitsImmediately { throw illegal }
            self.launch(index, inBackground: command == .launchInBackground)

        case (.activate, .active):
            // L1: activating an active app is a no-op.
            break

        case (.activate, .inactive):
            // inactive -> active: didBecomeActive (S5, S7 unlock, S8 cancel, S10 ignored).
            self.transition(index, to: .active, command: command, messages: [.didBecomeActive])

        case (.resignActive, .active):
            // active -> inactive: willResignActive (S4, S7 lock, S8 offer, S10 alert).
            self.transition(index, to: .inactive, command: command, messages: [.willResignActive])

        case (.enterBackground, .active), (.enterBackground, .inactive):
            let resign: [Message] = record.state == .active ? [.willResignActive] : []
            if exitsImmediately {
                // E1, immediate style: willResignActive, willTerminate; never in the background.
                self.beginTermination(index, reason: .exitsOnSuspend, graceful: true, messages: resign + [.willTerminate])
            } else {
                // active/inactive -> background: (willResignActive,) didEnterBackground; the budget starts (B3).
                self.enterBackground(index, command: command, messages: resign + [.didEnterBackground])
            }

        case (.enterForeground, .background), (.enterForeground, .suspended):
            // background/suspended -> active: willEnterForeground, held notifications (N1), didBecomeActive.
            self.enterForeground(index)

        case (.terminate, .active), (.terminate, .inactive), (.terminate, .background), (.terminate, .suspended):
            // The terminate rows of the table; a suspended app gets no message (L5).
            self.beginTermination(index, reason: .requested, graceful: true)

        default:
            throw illegal
        }
        self.advance(index)
        return self.finish()
    }

    /// Applies a composite user action of SPEC section 4 (its command).
    public mutating func userActionReceived(_ action: UserAction, for app: AppID, now: Instant) throws(SchedulerError) -> [Action] {
        try self.commandReceived(action.command, for: app, now: now)
    }

    func exitsImmediately(_ record: AppRecord) -> Bool {
        record.descriptor.exitsOnSuspend
            && (record.descriptor.exitsOnSuspendStyle ?? self.settings.exitsOnSuspendStyle) == .immediate
    }

    mutating func launch(_ index: Int, inBackground: Bool) {
        if self.apps[index].descriptor.isProcess {
            self.actions.append(.spawn(self.apps[index].id))
        }
        if inBackground {
            self.enterBackground(
                index,
                command: .launchInBackground,
                messages: [.didFinishLaunching, .didEnterBackground]
            )
        } else {
            self.transition(index, to: .active, command: .launch, messages: [.didFinishLaunching, .didBecomeActive])
        }
    }

    /// A plain foreground transition: set the state, queue the messages, publish.
    mutating func transition(_ index: Int, to state: AppState, command: Command, messages: [Message]) {
        let from = self.apps[index].state
        self.setState(index, state)
        self.apps[index].outbox.pending.append(contentsOf: messages)
        self.publish(index, from: from, to: state, cause: .command(command), messages: messages)
    }

    mutating func enterBackground(_ index: Int, command: Command, messages: [Message]) {
        self.transition(index, to: .background, command: command, messages: messages)
        self.apps[index].awaitingBackgroundEntry = true
        self.startBackgroundPeriod(index)
    }

    /// B3/B4/L7: the budget starts at background entry; the warning is armed before the deadline so that
    /// with a zero lead it still fires first (B10).
    mutating func startBackgroundPeriod(_ index: Int) {
        let now = self.lastNow
        let record = self.apps[index]
        if record.hasBackgroundModes {
            self.apps[index].period = BackgroundPeriod(entered: now, deadline: .distantFuture)
            return
        }
        let budget = record.descriptor.backgroundTimeBudget ?? self.settings.backgroundTimeBudget
        let deadline = now + budget
        let warningAt = Swift.max(now, deadline - self.settings.expirationWarningLead)
        var period = BackgroundPeriod(entered: now, deadline: deadline)
        period.warningTimer = self.arm(.expirationWarning, app: index, at: warningAt)
        period.deadlineTimer = self.arm(.budgetDeadline, app: index, at: deadline)
        self.apps[index].period = period
    }

    /// Ends the background period: no handler fires after this (B7).
    mutating func endBackgroundPeriod(_ index: Int) {
        guard var period = self.apps[index].period else { return }
        disarm(&period.warningTimer, in: &self.timers)
        disarm(&period.deadlineTimer, in: &self.timers)
        self.apps[index].period = nil
    }

    mutating func enterForeground(_ index: Int) {
        let from = self.apps[index].state
        if from == .suspended {
            self.actions.append(.resume(self.apps[index].id))
        }
        // B7: the clock stops; tasks stay valid; handlers not yet called are not called.
        self.endBackgroundPeriod(index)
        self.stopAwaitingBackgroundEntry(index)
        self.apps[index].outbox.pending.removeAll { message in
            if case .backgroundTaskWillExpire = message { return true }
            return false
        }
        let held = self.apps[index].heldNotifications.removeAll().map { Message.notification(name: $0.name, payload: $0.payload) }
        self.transition(
            index,
            to: .active,
            command: .enterForeground,
            messages: [.willEnterForeground] + held + [.didBecomeActive]
        )
    }
}
