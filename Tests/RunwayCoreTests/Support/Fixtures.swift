@_spi(Driver) @_spi(Processes) import RunwayCore
@_spi(Driver) import RunwayTestKit
import Testing

let mail: AppID = "com.example.mail"
let maps: AppID = "com.example.maps"
let music: AppID = "com.example.music"

/// `seconds` after the origin, exactly.
func at(_ seconds: Int64) -> Instant { .origin + .seconds(seconds) }

func at(milliseconds: Int64) -> Instant { .origin + .milliseconds(milliseconds) }

func process(_ id: AppID, speaksProtocol: Bool = true) -> AppDescriptor {
    AppDescriptor(
        id: id,
        kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"], speaksProtocol: speaksProtocol))
    )
}

/// A simulated driver with the given apps registered (embedded by default) on default settings.
func makeDriver(
    _ descriptors: [AppDescriptor] = [AppDescriptor(id: mail)],
    settings: SchedulerSettings = SchedulerSettings()
) -> SimulatedDriver {
    var scheduler = Scheduler(settings: settings)
    for descriptor in descriptors {
        do {
            try scheduler.register(descriptor)
        } catch {
            Issue.record("register failed: \(error)")
        }
    }
    return SimulatedDriver(scheduler: scheduler)
}

extension SimulatedDriver {
    /// Launches and lets every message return.
    func launched(_ app: AppID) -> Self {
        var copy = self
        try? copy.send(.launch, to: app)
        return copy
    }

    /// The events of one app, as (from, to, cause) triples.
    func transitions(of app: AppID) -> [String] {
        self.events.filter { $0.app == app }.map { "\($0.from)->\($0.to) \($0.cause)" }
    }

    func state(_ app: AppID) -> AppState? { self.scheduler.state(of: app) }

    /// Every action for `app` except deliveries, publications and wake-ups, as strings.
    func effects(on app: AppID) -> [String] {
        self.actions.compactMap { entry -> String? in
            switch entry.action {
            case .spawn(app), .suspend(app), .resume(app), .stop(app), .sendTerminateSignal(app), .kill(app):
                return "\(entry.at) \(entry.action)"
            case .endTasks(app, _):
                return "\(entry.at) \(entry.action)"
            default:
                return nil
            }
        }
    }
}
