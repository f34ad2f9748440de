import Runway
@_spi(Driver) import RunwayCore

// The control commands that act on the scheduler without an app's own request: device-wide user actions and
// background tasks held on an app's behalf. Loop thread only, like the rest of `ControlService`'s request handling.

extension ControlService {
    /// A user action without an app: device-wide; the reply lists the apps it reached.
    func deviceEventReply(_ action: UserAction, command: String, id: Int?) -> ControlReply {
        guard let event = DeviceEvent(rawValue: action.rawValue) else {
            return .failure("invalidRequest", "field 'app': command '\(command)' needs an app", id: id)
        }
        var reply = ControlReply(id: id, ok: true)
        reply.reached = self.scheduler.perform(event).map(\.bundleIdentifier)
        return reply
    }

    /// Begins a task held on `app`'s behalf (`beginTask`, B1); a refusal for a limit has the limit's own code.
    func beginTaskReply(name: String, app: AppID, id: Int?) -> ControlReply {
        let state = { self.scheduler.status(of: app)?.state.rawValue }
        switch self.scheduler.requestBackgroundTask(withName: name, for: app) {
        case .success(let task):
            var reply = ControlReply(id: id, ok: true)
            reply.task = task.rawValue
            reply.state = state()
            return reply
        case .failure(let refusal):
            // A limit is its own code (tooManyTasks, nameTooLong); any other refusal is taskRefused.
            let limit: Bool
            switch refusal {
            case .tooManyTasks, .nameTooLong: limit = true
            default: limit = false
            }
            return .failure(
                limit ? refusal.code : "taskRefused",
                "beginBackgroundTask returned invalid for \(app) in state \(state() ?? "unregistered") (see B1): "
                    + refusal.description,
                id: id
            )
        case nil:
            return .failure(
                "stopping",
                "stopping: the scheduler has stopped; the request for \(app) was refused",
                id: id
            )
        }
    }
}
