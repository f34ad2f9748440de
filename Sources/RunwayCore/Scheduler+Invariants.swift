// Invariant checks for tests and property runs: what the `Lifecycle` type cannot express. O(apps + tasks +
// timers).

extension Scheduler {
    /// Traps with the offending values when an invariant of the module header is broken.
    package func checkInvariants() {
        self.timers.checkInvariants()
        let armed = Dictionary(
            uniqueKeysWithValues: self.timers.armedInOrder.map { ($0.handle, (key: $0.payload, deadline: $0.deadline)) }
        )
        var referenced = Set<DeadlineHandle>()
        var seenTasks = Set<BackgroundTaskID>()
        for (index, record) in self.apps.enumerated() {
            let id = record.id
            for (handle, kind) in record.timerKinds {
                guard let timer = armed[handle] else {
                    preconditionFailure("app=\(id); a referenced \(kind) timer is not armed")
                }
                precondition(
                    timer.key == TimerKey(app: index, kind: kind),
                    "app=\(id); \(kind) timer armed as \(timer.key)"
                )
                precondition(referenced.insert(handle).inserted, "app=\(id); a timer is referenced twice")
            }
            if let refresh = record.refresh {
                // W7: the pending refresh's timer is armed for this app and referenced once.
                precondition(
                    armed[refresh.timer]?.key == TimerKey(app: index, kind: .refresh)
                        && armed[refresh.timer]?.deadline == refresh.due,
                    "app=\(id); refresh due \(refresh.due) is not armed as such"
                )
                precondition(referenced.insert(refresh.timer).inserted, "app=\(id); a timer is referenced twice")
            }
            self.checkShape(record, index: index, armed: armed.mapValues(\.deadline))
            let outstanding = self.outstandingTasks(index)
            let listed = record.lifecycle.running?.tasks.count ?? 0
            precondition(outstanding.count == listed, "app=\(id); listed=\(outstanding.count); count=\(listed)")
            precondition(outstanding == outstanding.sorted(), "app=\(id); tasks out of begin order")
            for taskID in outstanding {
                precondition(taskID != .invalid && taskID.rawValue < self.nextTaskID, "app=\(id); task=\(taskID)")
                precondition(seenTasks.insert(taskID).inserted, "task=\(taskID) is listed twice")
            }
        }
        precondition(
            referenced.count == self.timers.count,
            "referenced=\(referenced.count); armed=\(self.timers.count)"
        )
        precondition(
            seenTasks.count == self.taskTable.count,
            "listed=\(seenTasks.count); table=\(self.taskTable.count)"
        )
        let crashLooping = self.apps.count { $0.restart.status.crashLooping }
        precondition(
            crashLooping == self.crashLoopingApps,
            "crashLooping=\(crashLooping); counted=\(self.crashLoopingApps)"
        )
    }

    /// What the types leave open inside one app's state.
    private func checkShape(_ record: AppRecord, index: Int, armed: [DeadlineHandle: Instant]) {
        let id = record.id
        if let outbox = record.lifecycle.running?.outbox {
            outbox.checkInvariants(limit: self.settings.notificationQueueLimit, app: id)
            precondition(
                record.descriptor.awaitsMessages || outbox.inFlight == nil,
                "app=\(id) does not await messages but has one in flight"
            )
        }
        switch record.lifecycle {
        case .background(let period, _):
            precondition(
                period.wakes.isEmpty || period.deadline != nil,
                "app=\(id) holds wake-ups without a budget"
            )
            precondition(
                period.wakes.count <= self.settings.backgroundWakeLimitPerApp,
                "app=\(id); wakes=\(period.wakes.count)"
            )
            if case .limited(let deadline, let timer, let warning) = period.budget {
                precondition(
                    armed[timer] == deadline,
                    "app=\(id); deadline=\(deadline); timer=\(String(describing: armed[timer]))"
                )
                if case .armed(let handle) = warning, let at = armed[handle] {
                    precondition(at <= deadline, "app=\(id); warning=\(at) after deadline=\(deadline)")
                }
                if case .armed(let handle) = period.notice, let at = armed[handle] {
                    precondition(at < deadline, "app=\(id); notice=\(at) not before deadline=\(deadline)")
                    precondition(record.descriptor.isProcess, "app=\(id) is embedded and has an overrun notice")
                }
            } else {
                guard case .none = period.notice else { preconditionFailure("app=\(id); notice without a budget") }
            }
        case .terminating(let termination, let running):
            switch termination.phase {
            case .messaging: break
            case .signaled, .killed:
                precondition(record.descriptor.isProcess, "app=\(id) is embedded and waits for a signal")
                precondition(running.outbox.isIdle, "app=\(id) is signalled with messages queued")
            }
        case .notRunning, .foreground, .suspended:
            break
        }
    }
}
