import Runway
@_spi(Driver) import RunwayCore

// The control commands about notifications and memory: `notify` (N1), `memoryWarning` and `purge` (P3).
// Loop thread only, like the rest of `ControlService`'s request handling.

extension ControlService {
    /// Longest notification name, in UTF-8 bytes.
    static let notificationNameLimit = 256

    /// Posts `request`'s notification to `app` (N1). Returns an error reply when the request is malformed, nil
    /// when the notification was posted (the caller replies with the app's state).
    ///
    /// - Throws: the scheduler's refusal (`unknownApp`, `notRunning`, `stopping`).
    func notify(_ request: ControlRequest, app: AppID) throws(SchedulerError) -> ControlReply? {
        guard let name = request.name, !name.isEmpty, name.utf8.count <= Self.notificationNameLimit else {
            return .failure(
                "invalidRequest",
                "field 'name': notify needs a notification name of 1 to \(Self.notificationNameLimit) bytes",
                id: request.id
            )
        }
        try self.scheduler.post(notification: name, payload: request.payload ?? "", to: app)
        return nil
    }

    /// `memoryWarning` without an app: every running app is warned (P3; the core decides which).
    func memoryWarningReply(id: Int?) -> ControlReply {
        self.scheduler.memoryWarning()
        return ControlReply(id: id, ok: true)
    }

    /// `purge`: one app is purged as under critical pressure (P3); the reply names it, or has no `purged`.
    func purgeReply(id: Int?) -> ControlReply {
        var reply = ControlReply(id: id, ok: true)
        reply.purged = self.scheduler.purge()?.bundleIdentifier
        return reply
    }
}
