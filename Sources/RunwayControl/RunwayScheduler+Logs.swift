import Runway
@_spi(Driver) import RunwayCore
import RunwayProcesses

// The captured output of process apps (`AppLogStore`), for the daemon's `logs` control command and its run
// history. Like the other package methods, each may be called from any thread: it hops to the loop thread and
// waits (inline on the loop thread).

extension RunwayScheduler {
    /// The ring of `app`'s current (or last) run, or of the run before it (`previous`). nil when `app` is not a
    /// registered process app (embedded apps have no stdout), when the scheduler has stopped, or, with
    /// `previous`, when the app has not been started twice.
    package func appLogRing(of app: AppID, previous: Bool = false) -> AppLogRing? {
        self.bridge.sync { driver in driver.supervisor?.logs.ring(of: app, previous: previous) } ?? nil
    }

    /// The last `count` lines of `app`'s current (or last) run, oldest first, each as `runway logs` prints it
    /// (`2026-11-23T12:10:41.123Z stderr text`); empty for an app that is not a process app or never printed.
    /// For the run history: called when a run ends, it has every line read by then (lines still in the pipe
    /// when the exit is reported arrive later).
    package func lastLogLines(of app: AppID, count: Int) -> [String] {
        self.bridge.sync { driver in driver.supervisor?.logs.lastLines(of: app, count: count) ?? [] } ?? []
    }

    /// Calls `observer` for every line of every process app's output from now on, synchronously on the loop
    /// thread, in order (`runway logs -f`). It must be quick and must not block. Starts process supervision if
    /// no process app is registered yet (see `endProcessesLeftByPreviousRun`).
    package func observeAppLogs(_ observer: @escaping @Sendable (AppID, AppLogLine) -> Void) {
        _ = self.bridge.sync { driver in driver.processSupervisor().logs.observe(observer) }
    }
}
