// Invariant checks for tests and property runs: what the `Lifecycle` type cannot express. O(apps + tasks +
// timers).

extension Scheduler {
    /// Traps with the offending values when an invariant of the module header is broken.
    package func checkInvariants() {
        self.timers.checkInvariants()
        var referenced = 0
        var seenTasks = Set<BackgroundTaskID>()
        for (index, record) in self.apps.enumerated() {
            let id = record.id
            for handle in record.timers {
                precondition(self.timers.contains(handle), "app=\(id); a referenced timer is not armed")
            }
            referenced += record.timers.count
            let outstanding = self.outstandingTasks(index)
            let listed = record.lifecycle.running?.tasks.count ?? 0
            precondition(outstanding.count == listed, "app=\(id); listed=\(outstanding.count); count=\(listed)")
            precondition(outstanding == outstanding.sorted(), "app=\(id); tasks out of begin order")
            for taskID in outstanding {
                precondition(taskID != .invalid && taskID.rawValue < self.nextTaskID, "app=\(id); task=\(taskID)")
                precondition(seenTasks.insert(taskID).inserted, "task=\(taskID) is listed twice")
            }
        }
        precondition(referenced == self.timers.count, "referenced=\(referenced); armed=\(self.timers.count)")
        precondition(
            seenTasks.count == self.taskTable.count,
            "listed=\(seenTasks.count); table=\(self.taskTable.count)"
        )
    }
}
