// The user actions of section 4, for one app or for the whole device, and the lock behaviour of S7.

extension Scheduler {
    /// Applies a user action of section 4 to one app: the command it stands for (`UserAction.command`), except
    /// that with `LockBehavior.modern` (the app's, else the scheduler's) `lock` is `enterBackground` and `unlock`
    /// is `enterForeground` (S7).
    ///
    /// - Throws: as `commandReceived(_:for:now:)`. Nothing changes when it throws.
    public mutating func userActionReceived(
        _ action: UserAction,
        for app: AppID,
        now: Instant
    ) throws(SchedulerError) -> [Action] {
        self.begin(now)
        let index = try self.index(of: app)
        try self.apply(action, to: index)
        return self.finish()
    }

    /// A device-wide user event (S7, S8, S10). An opening event (`lock`, `offerShutdown`, `alert`) reaches every
    /// app in the foreground for which its command is legal now, and the scheduler remembers them; the closing
    /// event reaches those of them for which its command is legal then. Apps for which it is not legal are left
    /// alone (no error): a device event is not addressed to them. The exception is `acceptShutdown` while an offer
    /// is open: the device powers off, so it ends every running app (P7).
    ///
    /// - Returns: the apps the event reached, in registration order, and the actions to run.
    public mutating func deviceEventReceived(_ event: DeviceEvent, now: Instant) -> (apps: [AppID], actions: [Action]) {
        self.begin(now)
        if event == .acceptShutdown, self.interrupted[.offerShutdown] != nil {
            // P7: a device that powers off ends every app, not only those the offer made inactive.
            let reached = self.endEveryAppForAcceptedShutdown()
            return (reached.map { self.apps[$0].id }, self.finish())
        }
        let candidates: [Int]
        if let opener = event.closes {
            candidates = self.interrupted.removeValue(forKey: opener) ?? []
        } else {
            candidates = self.apps.indices.filter { self.apps[$0].state.isForeground }
        }
        var reached: [Int] = []
        for index in candidates {
            do throws(SchedulerError) {
                // L10: an unlock does not end an alert or a shutdown offer that is still open.
                let stillInterrupted =
                    event == .unlock
                    && self.interrupted.contains { $0.key != .lock && $0.value.contains(index) }
                try self.apply(event.userAction, to: index, stayingInactive: stillInterrupted)
                reached.append(index)
            } catch {
                continue
            }
        }
        if event.closes == nil {
            // A second opening event (lock twice) adds the apps it reached; the closing event reaches them all.
            let known = self.interrupted[event, default: []]
            self.interrupted[event] = known + reached.filter { !known.contains($0) }
        }
        return (reached.map { self.apps[$0].id }, self.finish())
    }

    /// Applies the command `action` stands for to one app and marks the transitions of that app it published with
    /// the action (`TransitionEvent.userAction`), so that an event reports what was asked beside the command.
    ///
    /// With `stayingInactive`, an `enterForeground` leaves the app `inactive` (L10).
    ///
    /// - Throws: as `apply(_:to:)`; nothing changes and nothing is published when it throws.
    mutating func apply(_ action: UserAction, to index: Int, stayingInactive: Bool = false) throws(SchedulerError) {
        let first = self.actions.count
        let wasTerminating = self.apps[index].lifecycle.isTerminating
        if action == .switcherKill {
            try self.killFromSwitcher(index)
        } else {
            let command = self.command(for: action, self.apps[index].descriptor)
            let state = self.apps[index].state
            if stayingInactive, command == .enterForeground, !self.apps[index].lifecycle.isTerminating,
                state == .background || state == .suspended
            {
                // L10: background/suspended -> inactive: willEnterForeground (and held notifications, N1) only.
                self.enterForeground(index, to: .inactive)
                self.advance(index)
            } else {
                try self.apply(command, to: index)
            }
        }
        if !wasTerminating, var termination = self.apps[index].lifecycle.termination {
            // A termination that outlives this step: its last transition names the action too.
            termination.userAction = action
            self.setTermination(index, termination)
        }
        let app = self.apps[index].id
        for position in first..<self.actions.count {
            guard case .publish(var event) = self.actions[position], event.app == app else { continue }
            event.userAction = action
            self.actions[position] = .publish(event)
        }
    }

    /// The command a user action stands for, for this app (S7's lock behaviour).
    func command(for action: UserAction, _ descriptor: AppDescriptor) -> Command {
        switch (action, descriptor.lockBehavior ?? self.settings.lockBehavior) {
        case (.lock, .modern): return .enterBackground
        case (.unlock, .modern): return .enterForeground
        default: return action.command
        }
    }
}
