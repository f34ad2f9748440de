// S15: the user kills an app from the switcher (the multitasking bar).

extension Scheduler {
    /// Kills the app at `index` as the switcher does (S15): the `terminate` row of its state, so a suspended app
    /// gets no message and is killed at once (L5, P2) and an app in the background is sent `willTerminate` and
    /// then ends as `terminate` ends it (L4). An app in the foreground is refused: the switcher lists the apps the
    /// user left, not the one on screen.
    ///
    /// - Throws: `illegalCommand` naming `switcherKill`, the app and its state, for an app in the foreground, not
    ///   running or terminating. Nothing changes when it throws.
    mutating func killFromSwitcher(_ index: Int) throws(SchedulerError) {
        let record = self.apps[index]
        guard !record.state.isForeground else {
            var refusal = SchedulerError(
                .illegalCommand,
                app: record.id,
                state: record.state,
                terminating: record.lifecycle.isTerminating,
                command: .terminate
            )
            refusal.userAction = .switcherKill
            throw refusal
        }
        do throws(SchedulerError) {
            try self.apply(.terminate, to: index)
        } catch {
            var refusal = error
            refusal.userAction = .switcherKill
            throw refusal
        }
    }
}
