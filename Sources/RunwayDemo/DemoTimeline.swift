import RunwayControl
@_spi(Driver) import RunwayCore
@_spi(Driver) import RunwayTestKit

/// Formats a simulated driver's log as a readable timeline: transitions, tasks, expiration warnings and
/// what was done to processes. Routine message deliveries are shown inside their transition.
package enum DemoTimeline {
    package static func lines(for log: [SimulatedDriver.Entry]) -> [String] {
        let width = log.compactMap(appName).map(\.count).max() ?? 0
        return log.compactMap { entry in
            guard let text = self.text(for: entry.what) else { return nil }
            let app = appName(entry)?.padding(to: width) ?? String(repeating: " ", count: width)
            return "\(entry.at.description.padding(to: 10)) \(app)  \(text)"
        }
    }

    private static func appName(_ entry: SimulatedDriver.Entry) -> String? {
        switch entry.what {
        case .action(let action):
            switch action {
            case .deliver(let app, _, _), .spawn(let app), .suspend(let app), .resume(let app), .stop(let app),
                .sendTerminateSignal(let app), .kill(let app), .endTasks(let app, _), .setOOMScoreAdjust(let app, _),
                .callExpirationHandler(let app, _):
                return app.bundleIdentifier
            case .publish(let event): return event.app.bundleIdentifier
            case .armWakeup, .cancelWakeup: return nil
            }
        case .taskBegan(let app, _, _), .taskRefused(let app, _), .taskEnded(let app, _), .returned(let app, _):
            return app.bundleIdentifier
        case .refused: return nil
        }
    }

    private static func text(for what: SimulatedDriver.Entry.What) -> String? {
        switch what {
        case .action(.publish(let event)):
            return TimelineText.transition(event)
        case .action(.deliver(_, .backgroundTaskWillExpire(let id), _)), .action(.callExpirationHandler(_, let id)):
            return "expiration handler called for \(id)"
        case .action(.spawn): return "spawned"
        case .action(.suspend): return "suspend"
        case .action(.resume): return "resume"
        case .action(.stop): return "stopped"
        case .action(.sendTerminateSignal): return "SIGTERM"
        case .action(.kill): return "SIGKILL"
        case .action(.endTasks(_, let ids)):
            return "tasks ended by the scheduler: \(ids.map(\.description).joined(separator: ", "))"
        case .taskBegan(_, let id, let name): return "began \(id) \"\(name)\""
        case .taskRefused(_, let refusal): return "beginBackgroundTask refused: \(refusal)"
        case .taskEnded(_, let id): return "ended \(id)"
        case .refused(let error): return "refused: \(error)"
        case .action, .returned: return nil
        }
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        self.count >= width ? self : self + String(repeating: " ", count: width - self.count)
    }
}
