import Runway
@_spi(Driver) import RunwayCore

// The control command `wake` (Behaviour.md W1): a background fetch or a remote notification for one app. Loop thread
// only, like the rest of `ControlService`'s request handling.

extension ControlService {
    /// Wakes `app` for the request's `reason` with its `payload`; the reply has the app's state and the token.
    ///
    /// - Throws: the scheduler's refusal (`unknownApp`, `notWakeable`, `tooManyWakes`, `payloadTooLarge`,
    ///   `stopping`). A wake-up whose process could not be spawned is the failure reply `spawnFailed`.
    func wakeReply(_ request: ControlRequest, app: AppID) throws(SchedulerError) -> ControlReply {
        guard let name = request.reason, let reason = WakeReason(rawValue: name) else {
            let found = request.reason.map { "'\($0)'" } ?? "nothing"
            let known = WakeReason.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(
                "invalidRequest",
                "field 'reason': expected one of \(known), found \(found)",
                id: request.id
            )
        }
        let token = try self.scheduler.wake(app, for: reason, payload: request.payload ?? "")
        let status = self.scheduler.status(of: app)
        // A not-running process app whose program cannot be started is back in notRunning in the same loop step:
        // spawnFailed, as for launch, not `ok` with state notRunning.
        if let failure = self.spawnFailureReply(app, status: status, id: request.id) { return failure }
        var reply = ControlReply(id: request.id, ok: true)
        reply.state = status?.state.rawValue
        reply.wake = token.rawValue
        return reply
    }
}
