import Runway
@_spi(Driver) import RunwayCore

extension ControlService {
    /// The `spawnFailed` error reply for a `launch` or `launchInBackground` whose program could not be started, or
    /// nil. The command was accepted, the spawn failed in the same loop step (a missing or non-executable program),
    /// and the app is back in notRunning with `lastTermination` `spawnFailed(...)`: the reply says so and names the
    /// reason, instead of `ok` with state notRunning (Docs/ControlProtocol.md). Loop thread.
    func spawnFailureReply(_ command: ControlCommand, app: AppID?, id: Int?) -> ControlReply? {
        guard case .lifecycle(let lifecycle) = command, lifecycle == .launch || lifecycle == .launchInBackground,
            let app
        else { return nil }
        return self.spawnFailureReply(app, status: self.scheduler.status(of: app), id: id)
    }

    /// The `spawnFailed` error reply when `status` (the app's, read after a command that may have started it: a
    /// launch, a wake-up) shows a spawn that failed in that same loop step, or nil: the command ran, but every
    /// client must learn that its program did not start.
    func spawnFailureReply(_ app: AppID, status: AppStatus?, id: Int?) -> ControlReply? {
        guard let status, status.state == .notRunning, case .spawnFailed(let reason)? = status.lastTermination
        else { return nil }
        return .failure(
            "spawnFailed",
            "spawnFailed: \(app.bundleIdentifier) could not be started: \(reason); it is notRunning",
            id: id
        )
    }
}
