import Runway
@_spi(Driver) import RunwayCore
import Synchronization

/// Plays a `Scenario` against a running scheduler in real time and reports the steps that failed (a refused
/// command, a task that could not begin, an expectation that did not hold).
struct ScenarioPlayer: Sendable {
    let scenario: Scenario
    let scheduler: RunwayScheduler
    let timeline: Timeline

    /// Runs every step at its time after the call; returns the failures, in step order. Stops early (returning
    /// what failed so far) when the task is cancelled.
    func play() async -> [String] {
        let clock = ContinuousClock()
        let start = clock.now
        var failures: [String] = []
        var tasks: [(app: AppID, name: String, id: BackgroundTaskID)] = []
        for step in self.scenario.steps {
            do {
                try await clock.sleep(
                    until: start + .nanoseconds(Int64((step.at * 1e9).rounded())),
                    tolerance: .milliseconds(1)
                )
            } catch {
                return failures
            }
            if let failure = self.perform(step, tasks: &tasks) {
                failures.append("\(step.location): \(failure)")
                self.timeline.note(step.app, "FAILED: \(failure)")
            }
        }
        return failures
    }

    /// Performs one step; returns why it failed, or nil.
    private func perform(
        _ step: Scenario.Step,
        tasks: inout [(app: AppID, name: String, id: BackgroundTaskID)]
    ) -> String? {
        let app = step.app ?? AppID("")
        let timeline = self.timeline
        do throws(SchedulerError) {
            switch step.action {
            case .lifecycle(let command):
                timeline.note(step.app, "> \(command)")
                try self.scheduler.perform(command, on: app)
            case .userAction(let action):
                // lock and unlock stand for a command that depends on the app's LockBehavior (S7).
                let lock = action == .lock || action == .unlock
                timeline.note(step.app, "> \(action.rawValue)" + (lock ? "" : " (\(action.command))"))
                try self.scheduler.perform(action, on: app)
            case .deviceEvent(let event):
                timeline.note(nil, "> \(event.rawValue) (device-wide)")
                let reached = self.scheduler.perform(event).map(\.bundleIdentifier)
                timeline.note(nil, reached.isEmpty ? "reached no app" : "reached " + reached.joined(separator: ", "))
            case .beginTask(let name):
                let id = self.scheduler.beginBackgroundTask(withName: name, for: app) {
                    timeline.note(app, "expiration handler called for \"\(name)\"")
                }
                guard id != .invalid else { return "beginBackgroundTask(\"\(name)\") returned invalid" }
                timeline.note(step.app, "began \(id) \"\(name)\"")
                tasks.append((app, name, id))
            case .endTask(let name):
                guard let index = tasks.firstIndex(where: { $0.app == app && (name == nil || $0.name == name) }) else {
                    return "no task \(name.map { "\"\($0)\" " } ?? "")begun by this scenario is outstanding for \(app)"
                }
                let task = tasks.remove(at: index)
                timeline.note(step.app, "ended \(task.id) \"\(task.name)\"")
                try self.scheduler.endBackgroundTask(task.id, for: app)
            case .extend(let span):
                timeline.note(step.app, "> extend budget by \(span)")
                try self.scheduler.extendBudget(of: app, by: span)
            case .expire:
                timeline.note(step.app, "> expire budget now")
                try self.scheduler.expireBudget(of: app)
            case .purge:
                timeline.note(nil, "> memory purge (as under critical pressure)")
                if self.scheduler.purge() == nil { timeline.note(nil, "nothing to purge") }
            case .memoryWarning:
                timeline.note(nil, "> memory warning")
                self.scheduler.memoryWarning()
            case .wake(let reason, let payload):
                timeline.note(step.app, "> wake for \(reason)" + (payload.isEmpty ? "" : " with payload \(payload)"))
                let token = try self.scheduler.wake(app, for: reason, payload: payload)
                timeline.note(step.app, "woken (\(token))")
            case .expect(let state, let reason):
                if let restarts = step.restarts, let found = self.scheduler.status().first(where: { $0.app == app }),
                    found.restart.restarts != restarts
                {
                    return "expected \(app) restarted \(restarts) time(s), found \(found.restart.restarts)"
                }
                return self.check(app, state: state, reason: reason)
            }
        } catch {
            return "refused: \(error)"
        }
        return nil
    }

    private func check(_ app: AppID, state: AppState, reason: String?) -> String? {
        guard let status = self.scheduler.status().first(where: { $0.app == app }) else {
            return "\(app) is not registered"
        }
        let expected = state.rawValue + (reason.map { " (\($0))" } ?? "")
        let found = status.state.rawValue + (status.lastTermination.map { " (\($0))" } ?? "")
        let reasonHolds = reason == nil || status.lastTermination?.description == reason
        guard status.state == state, status.terminating == nil, reasonHolds else {
            return
                "expected \(app) \(expected), found \(found)\(status.terminating.map { " terminating (\($0))" } ?? "")"
        }
        self.timeline.note(app, "check: \(expected) as expected")
        return nil
    }
}
