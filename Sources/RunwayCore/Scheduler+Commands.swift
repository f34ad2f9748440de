// Commands (Behaviour.md section 2 table, L1) and the foreground/background transitions they cause.

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
    public mutating func commandReceived(
        _ command: Command,
        for app: AppID,
        now: Instant
    ) throws(SchedulerError) -> [Action] {
        self.begin(now)
        let index = try self.index(of: app)
        try self.apply(command, to: index)
        return self.finish()
    }

    /// Applies one command inside the current call (L1): throws before changing anything when it is refused.
    mutating func apply(_ command: Command, to index: Int) throws(SchedulerError) {
        let record = self.apps[index]
        let app = record.id
        let illegal = SchedulerError(
            .illegalCommand,
            app: app,
            state: record.state,
            terminating: record.lifecycle.isTerminating,
            command: command
        )
        let exitsImmediately = self.exitsImmediately(record.descriptor)
        // KeepAlive: `terminate` of an app waiting for a restart cancels the restart (Scheduler+Restart.swift).
        if self.terminateCancelsRestart(command, index) { return }

        switch (command, record.lifecycle) {
        case (.launch, .notRunning):
            // notRunning -> inactive: didFinishLaunching; active when it returns (L9, S1).
            guard !self.stopping else { throw SchedulerError(.stopping, app: app, state: record.state) }
            self.launch(index, inBackground: false)

        case (.launchInBackground, .notRunning):
            // notRunning -> background: didFinishLaunching, didEnterBackground. Never for E1's immediate style.
            guard !self.stopping else { throw SchedulerError(.stopping, app: app, state: record.state) }
            guard !exitsImmediately else { throw illegal }
            self.launch(index, inBackground: true)

        case (.activate, .foreground(.active, _)):
            // L1: activating an active app is a no-op.
            break

        case (.activate, .foreground(.inactive, let running)):
            // inactive -> active: didBecomeActive (S5, S7 unlock, S8 cancel, S10 ignored).
            self.changeForeground(index, to: .active, running, command: command, messages: [.didBecomeActive])

        case (.resignActive, .foreground(.active, let running)):
            // active -> inactive: willResignActive (S4, S7 lock, S8 offer, S10 alert).
            self.changeForeground(index, to: .inactive, running, command: command, messages: [.willResignActive])

        case (.resignActive, .foreground(.inactive, _)) where self.apps[index].launching != nil:
            // L9: interrupted while launching: no message (it never became active), nothing published, and it
            // stays inactive when didFinishLaunching returns.
            self.apps[index].launching = nil

        case (.enterBackground, .foreground(let mode, let running)):
            if exitsImmediately {
                // E1, immediate style: (willResignActive,) willTerminate; never in the background.
                self.beginTermination(index, reason: .exitsOnSuspend, graceful: true)
            } else {
                // active/inactive -> background: (willResignActive,) didEnterBackground; the budget starts (B3).
                // Commands are rare: the copies of `running` here cost nothing that matters.
                let messages: [Message] = (mode == .active ? [.willResignActive] : []) + [.didEnterBackground]
                var running = running
                running.outbox.append(messages)
                self.enterBackground(index, running, command: command, messages: messages)
            }

        case (.enterForeground, .background), (.enterForeground, .suspended):
            // background/suspended -> active: willEnterForeground, held notifications (N1), didBecomeActive.
            self.enterForeground(index)

        case (.terminate, .foreground), (.terminate, .background), (.terminate, .suspended):
            // The terminate rows of the table; a suspended app gets no message (L5).
            self.beginTermination(index, reason: .requested, graceful: true)

        case (_, .terminating):
            // Nothing may be asked of an app that is going away.
            throw illegal

        case (.launch, .foreground), (.launch, .background), (.launch, .suspended),
            (.launchInBackground, .foreground), (.launchInBackground, .background),
            (.launchInBackground, .suspended),
            (.activate, .notRunning), (.activate, .background), (.activate, .suspended),
            (.resignActive, .notRunning), (.resignActive, .foreground(.inactive, _)), (.resignActive, .background),
            (.resignActive, .suspended),
            (.enterBackground, .notRunning), (.enterBackground, .background), (.enterBackground, .suspended),
            (.enterForeground, .notRunning), (.enterForeground, .foreground),
            (.terminate, .notRunning):
            // L1: not a row of the table.
            throw illegal
        }
        self.advance(index)
    }

    /// E1's immediate style: the app never enters the background.
    func exitsImmediately(_ index: Int) -> Bool {
        self.apps[index].descriptor.exitsOnSuspend
            && (self.apps[index].descriptor.exitsOnSuspendStyle ?? self.settings.exitsOnSuspendStyle) == .immediate
    }

    /// E1's immediate style for a descriptor.
    func exitsImmediately(_ descriptor: AppDescriptor) -> Bool {
        descriptor.exitsOnSuspend && (descriptor.exitsOnSuspendStyle ?? self.settings.exitsOnSuspendStyle) == .immediate
    }

    mutating func launch(_ index: Int, inBackground: Bool) {
        self.runStarting(index)
        self.restorationStarting(index)
        if self.apps[index].descriptor.isProcess {
            self.actions.append(.spawn(self.apps[index].id))
        }
        if inBackground {
            let messages: [Message] = [.didFinishLaunching, .didEnterBackground]
            self.enterBackground(
                index,
                RunningApp(messages: messages),
                command: .launchInBackground,
                messages: messages
            )
        } else {
            // L9: inactive while didFinishLaunching runs; `launchFinished` makes the app active when it returns.
            let messages: [Message] = [.didFinishLaunching]
            self.apps[index].launching = .command(.launch)
            self.enter(index, .foreground(.inactive, RunningApp(messages: messages)))
            self.publish(index, from: .notRunning, to: .inactive, cause: .command(.launch), messages: messages)
        }
    }

    /// L9: `didFinishLaunching` returned. An app still inactive from its launch becomes active and is sent
    /// `didBecomeActive`; one that a command moved meanwhile (activated, sent to the background, terminating) keeps
    /// what that command did.
    mutating func launchFinished(_ index: Int) {
        guard let cause = self.apps[index].launching else { return }
        self.apps[index].launching = nil
        guard case .foreground(.inactive, var running) = self.apps[index].lifecycle else { return }
        running.outbox.append([.didBecomeActive])
        self.enter(index, .foreground(.active, running))
        self.publish(index, from: .inactive, to: .active, cause: cause, messages: [.didBecomeActive])
    }

    /// active <-> inactive: queue the messages, publish.
    mutating func changeForeground(
        _ index: Int,
        to mode: Lifecycle.Foreground,
        _ running: RunningApp,
        command: Command,
        messages: [Message]
    ) {
        let from = self.apps[index].state
        // L9: a command that changes the foreground during the launch replaces the launch's own step to active.
        self.apps[index].launching = nil
        var running = running
        running.outbox.append(messages)
        self.enter(index, .foreground(mode, running))
        self.publish(index, from: from, to: self.apps[index].state, cause: .command(command), messages: messages)
    }

    /// B3/B4/B11/L7: the budget starts at background entry; the warning and the overrun notice are armed before the
    /// deadline so that at an equal instant they still fire first (B10). `running` already holds the messages.
    mutating func enterBackground(_ index: Int, _ running: RunningApp, command: Command, messages: [Message]) {
        let from = self.apps[index].state
        let now = self.lastNow
        let budget: BackgroundPeriod.Budget
        var notice = BackgroundPeriod.Notice.none
        if self.apps[index].hasBackgroundModes {
            budget = .unlimited
        } else {
            let span = self.apps[index].descriptor.backgroundTimeBudget ?? self.settings.backgroundTimeBudget
            let deadline = now + span
            let warning = self.arm(
                .expirationWarning,
                app: index,
                at: self.settings.warningInstant(deadline: deadline, notBefore: now)
            )
            notice = self.armNotice(index, deadline: deadline, notBefore: now)
            let timer = self.arm(.budgetDeadline, app: index, at: deadline)
            budget = .limited(deadline: deadline, timer: timer, warning: .armed(warning))
        }
        // L3: the grace is armed when `didEnterBackground` is sent; one sent during an earlier visit to the
        // foreground and still in flight gets its grace from now.
        var grace: DeadlineHandle?
        if running.outbox.inFlight?.message == .didEnterBackground {
            grace = self.arm(.backgroundEntryGrace, app: index, at: now + self.settings.backgroundEntryGrace)
        }
        let period = BackgroundPeriod(entered: now, budget: budget, entry: .awaiting(grace: grace), notice: notice)
        self.enter(index, .background(period, running))
        self.publish(index, from: from, to: .background, cause: .command(command), messages: messages)
    }

    /// background/suspended -> active. B7: the clock stops; tasks stay valid; handlers not yet called are not
    /// called. N1: held notifications are delivered between `willEnterForeground` and `didBecomeActive`. L10: an app
    /// that an interruption still open holds inactive comes back `inactive`, without `didBecomeActive`.
    mutating func enterForeground(_ index: Int, to mode: Lifecycle.Foreground = .active) {
        let from = self.apps[index].state
        let to: AppState = mode == .active ? .active : .inactive
        let last: [Message] = mode == .active ? [.didBecomeActive] : []
        var running: RunningApp
        switch self.apps[index].lifecycle {
        case .background(let period, let kept):
            self.disarm(period)
            running = kept
            running.outbox.dropExpirationMessages()
            running.outbox.append([.willEnterForeground] + last)
            self.enter(index, .foreground(mode, running))
            let messages: [Message] = [.willEnterForeground] + last
            self.publish(index, from: from, to: to, cause: .command(.enterForeground), messages: messages)
        case .suspended(let held):
            self.actions.append(.resume(self.apps[index].id))
            let messages = [.willEnterForeground] + held.messages + last
            running = RunningApp(outbox: Outbox(before: [.willEnterForeground], held: held, after: last))
            self.enter(index, .foreground(mode, running))
            self.publish(index, from: from, to: to, cause: .command(.enterForeground), messages: messages)
        case .notRunning, .foreground, .terminating:
            preconditionFailure("enterForeground from \(from); app=\(self.apps[index].id)")
        }
    }
}
