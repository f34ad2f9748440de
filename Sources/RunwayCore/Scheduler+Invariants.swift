// Invariant checks for tests and property runs. O(apps + tasks + timers).

extension Scheduler {
    /// Traps with the offending values when an invariant of the module header is broken.
    package func checkInvariants() {
        self.timers.checkInvariants()
        var referenced = 0
        var seenTasks = Set<BackgroundTaskID>()
        for record in self.apps {
            let id = record.id
            let handles = [
                record.period?.warningTimer, record.period?.deadlineTimer, record.entryGraceTimer,
                record.termination?.timer,
            ].compactMap { $0 }
            for handle in handles {
                precondition(self.timers.contains(handle), "app=\(id); a referenced timer is not armed")
            }
            referenced += handles.count
            let outstanding = self.outstandingTasks(self.appIndex[id] ?? -1)
            precondition(outstanding.count == record.tasks.count, "app=\(id); listed=\(outstanding.count); count=\(record.tasks.count)")
            precondition(outstanding == outstanding.sorted(), "app=\(id); tasks out of begin order")
            for taskID in outstanding {
                precondition(taskID != .invalid && taskID.rawValue < self.nextTaskID, "app=\(id); task=\(taskID)")
                precondition(seenTasks.insert(taskID).inserted, "task=\(taskID) is listed twice")
            }
            switch record.state {
            case .notRunning:
                precondition(record.tasks.isEmpty, "app=\(id) is notRunning with \(record.tasks.count) tasks")
                precondition(handles.isEmpty, "app=\(id) is notRunning with \(handles.count) timers")
                precondition(record.outbox.isIdle, "app=\(id) is notRunning with messages queued")
                precondition(record.termination == nil, "app=\(id) is notRunning and terminating")
                precondition(record.period == nil, "app=\(id) is notRunning with a background period")
            case .suspended:
                precondition(record.tasks.isEmpty, "app=\(id) is suspended with \(record.tasks.count) tasks")
                precondition(record.outbox.isIdle, "app=\(id) is suspended with messages queued")
                precondition(record.period == nil, "app=\(id) is suspended with a background period")
            case .active, .inactive:
                precondition(record.period == nil, "app=\(id) is \(record.state) with a background period")
                precondition(record.heldNotifications.count == 0, "app=\(id) holds notifications while running")
            case .background:
                precondition(
                    record.period != nil || record.termination != nil,
                    "app=\(id) is in the background without a period"
                )
            }
        }
        precondition(referenced == self.timers.count, "referenced=\(referenced); armed=\(self.timers.count)")
        precondition(seenTasks.count == self.taskTable.count, "listed=\(seenTasks.count); table=\(self.taskTable.count)")
    }
}
