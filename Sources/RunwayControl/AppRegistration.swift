import Runway
import RunwayConfig
import RunwayCore

// The one place where the daemon registers configured apps and reads what the process driver knows about them.
//
// Until `RunwayScheduler` runs process apps (`register(process:)`, `processes()`), a process app from
// Config/Apps is registered as an embedded stand-in: the same identifier, budget and keys, with a delegate that
// answers every message at once. Its lifecycle, budgets and timeline are the real scheduler's; no child process
// is started, so status shows no pid. `standInNote` says so at startup.

/// Registers one configured app in `notRunning`.
func registerApp(_ app: ConfiguredApp, on scheduler: RunwayScheduler) throws(SchedulerError) {
    var descriptor = app.descriptor
    if descriptor.isProcess {
        descriptor.kind = .embedded
    }
    try scheduler.register(descriptor, delegate: StandInApp())
}

/// Printed at startup when some apps run as stand-ins; nil when none does.
func standInNote(_ apps: [ConfiguredApp]) -> String? {
    let count = apps.filter(\.descriptor.isProcess).count
    guard count > 0 else { return nil }
    return "note: \(count) process app(s) run as in-process stand-ins (no child process, no pid) until the "
        + "process driver is available in this build"
}

/// pid and suspension details per process app; empty while process apps run as stand-ins.
func processRows(of scheduler: RunwayScheduler) -> [AppID: ProcessRow] {
    [:]
}

/// An app that returns from every lifecycle message at once (the defaults of `RunwayAppDelegate`): it holds no
/// background task of its own, so it is suspended as soon as it reaches the background unless a scenario or an
/// operator holds a task for it.
final class StandInApp: RunwayAppDelegate {}
