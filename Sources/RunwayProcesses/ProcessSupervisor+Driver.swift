@_spi(Processes) import RunwayCore

// What the driver in `Runway` reads of the supervisor as a whole, in the shapes it reports, so that the
// supervisor's own bookkeeping (`Managed`, `ProcessStateSnapshot`) stays inside this module.
extension ProcessSupervisor {
    /// `status(of:)` of every registered process app. Loop thread only.
    package func statusOfEveryApp() -> [AppID: ProcessStatus] {
        var result: [AppID: ProcessStatus] = [:]
        for app in self.apps.keys { result[app] = self.status(of: app) }
        return result
    }

    /// The processes a predecessor left that were ended when the supervisor started (`ProcessOptions.stateFile`),
    /// as `(pid, app)` (app "" when unattributed); the list is emptied, so a later call returns nothing.
    package func takeEndedAtStart() -> [(pid: Int32, app: String)] {
        self.stateRecorder.takeEndedAtStart()
    }
}
