import Foundation
import RunwayConfig
@_spi(Driver) import RunwayCore

/// A scripted list of timed actions (Behaviour.md K3), read from a JSON Lines file: one JSON object per line, blank
/// lines and lines starting with `#` ignored. Format reference: Docs/Scenarios.md.
///
/// ```
/// # S12: a task that ignores its expiration warning is terminated at the deadline.
/// {"at": 0,   "app": "com.example.sync", "do": "launch"}
/// {"at": 0.5, "app": "com.example.sync", "do": "beginTask", "task": "full-sync"}
/// {"at": 0.5, "app": "com.example.sync", "do": "home"}
/// {"at": 5,   "app": "com.example.sync", "expect": "notRunning", "reason": "budgetOverrun"}
/// ```
package struct Scenario: Sendable {
    package struct Step: Sendable {
        package enum Action: Sendable, Equatable {
            case lifecycle(Command)
            case userAction(UserAction)
            /// A user action without an app: device-wide (S7, S8, S10).
            case deviceEvent(DeviceEvent)
            /// Begin a background task with this name on the app's behalf.
            case beginTask(String)
            /// End the oldest outstanding task begun by this scenario with this name (any name when nil).
            case endTask(String?)
            case extend(TimeSpan)
            case expire
            case purge
            case memoryWarning
            /// A background wake-up (W1) with this reason and payload.
            case wake(WakeReason, payload: String)
            /// Check the app's state (and, for `notRunning`, its last termination reason).
            case expect(AppState, reason: String?)
        }

        /// Seconds after the scenario starts.
        package var at: Double
        package var app: AppID?
        package var action: Action
        /// Where it was read: `file:line`.
        package var location: String
        /// For `expect`: the app's KeepAlive restarts must be exactly this many (`"restarts": 1`).
        package var restarts: Int? = nil
    }

    package var file: String
    /// In time order (equal times keep file order).
    package var steps: [Step]

    /// Seconds from the start to the last step.
    package var duration: Double { self.steps.last?.at ?? 0 }

    /// What `do` may name besides lifecycle commands and user actions.
    static let operations = ["beginTask", "endTask", "extend", "expire", "purge", "memoryWarning", "wake"]
    static let keys: Set<String> = [
        "at", "app", "do", "task", "seconds", "expect", "reason", "restarts", "payload",
    ]

    /// Reads and checks a scenario against the apps of `configuration`.
    ///
    /// - Throws: `ScenarioError` naming the file, the line and the field, what was found and what was expected.
    package static func load(file: String, configuration: RunwayConfiguration) throws(ScenarioError) -> Scenario {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ScenarioError(location: file, message: "cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ScenarioError(location: file, message: "not UTF-8 text")
        }
        let apps = Set(configuration.apps.map(\.descriptor.id))
        var steps: [Step] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let location = "\(file):\(index + 1)"
            steps.append(
                try self.step(String(line), location: location, apps: apps, directory: configuration.directory)
            )
        }
        guard !steps.isEmpty else {
            throw ScenarioError(location: file, message: "no steps (every line is blank or a comment)")
        }
        let ordered = steps.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(
            \.element
        )
        return Scenario(file: file, steps: ordered)
    }

    private static func step(
        _ line: String,
        location: String,
        apps: Set<AppID>,
        directory: String
    ) throws(ScenarioError) -> Step {
        func fail(_ message: String) -> ScenarioError { ScenarioError(location: location, message: message) }
        let data = Data(line.utf8)
        guard let object = try? JSONSerialization.jsonObject(with: data) else {
            throw fail("not valid JSON (each line is one JSON object)")
        }
        guard let fields = object as? [String: Any] else { throw fail("expected a JSON object") }
        if let unknown = fields.keys.sorted().first(where: { !self.keys.contains($0) }) {
            throw fail("unknown field '\(unknown)'; expected \(self.keys.sorted().joined(separator: ", "))")
        }
        let raw: RawStep
        do {
            raw = try JSONDecoder().decode(RawStep.self, from: data)
        } catch {
            throw fail(fieldProblem(error))
        }
        func string(_ value: String?, _ key: String) throws(ScenarioError) -> String? {
            guard let value else { return nil }
            guard !value.isEmpty else { throw fail("field '\(key)': expected a non-empty string") }
            return value
        }
        guard let at = raw.at else { throw fail("field 'at' is missing: seconds after the start, >= 0") }
        guard at >= 0, at <= 3_600 else { throw fail("field 'at': expected seconds in 0...3600, found \(at)") }
        var app: AppID?
        if let name = try string(raw.app, "app") {
            guard apps.contains(AppID(name)) else {
                let known = apps.sorted().map(\.bundleIdentifier).joined(separator: ", ")
                throw fail("field 'app': no app '\(name)' in \(directory)/Apps; known: \(known)")
            }
            app = AppID(name)
        }
        let action: Step.Action
        switch (try string(raw.do, "do"), try string(raw.expect, "expect")) {
        case (nil, nil), (.some, .some):
            throw fail("exactly one of 'do' (an action) and 'expect' (a state to check) is needed")
        case (nil, .some(let state)):
            guard let state = AppState(rawValue: state) else {
                let known = AppState.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail("field 'expect': unknown state '\(state)'; expected \(known)")
            }
            action = .expect(state, reason: try string(raw.reason, "reason"))
        case (.some(let name), nil):
            if name == "wake" {
                action = try self.wake(reason: try string(raw.reason, "reason"), payload: raw.payload, fail: fail)
            } else {
                action = try self.action(name, task: try string(raw.task, "task"), seconds: raw.seconds, fail: fail)
            }
        }
        if let restarts = raw.restarts {
            guard case .expect = action, restarts >= 0 else {
                throw fail("field 'restarts': only on an 'expect' step, a number of restarts >= 0")
            }
        }
        switch (action, app) {
        case (.purge, _), (.memoryWarning, _), (_, .some):
            return Step(at: at, app: app, action: action, location: location, restarts: raw.restarts)
        case (.userAction(let user), nil):
            guard let event = DeviceEvent(rawValue: user.rawValue) else { fallthrough }
            return Step(at: at, app: nil, action: .deviceEvent(event), location: location)
        default:
            let optional = ["purge", "memoryWarning"] + DeviceEvent.allCases.map(\.rawValue)
            throw fail(
                "field 'app' is missing: this step needs the bundle identifier of an app (only "
                    + optional.joined(separator: ", ") + " may leave it out)"
            )
        }
    }

    /// `{"do": "wake", "reason": "fetch", "payload": "{}"}` (W1).
    private static func wake(
        reason: String?,
        payload: String?,
        fail: (String) -> ScenarioError
    ) throws(ScenarioError) -> Step.Action {
        let known = WakeReason.allCases.map(\.rawValue).joined(separator: ", ")
        guard let reason else { throw fail("field 'reason' is missing: wake needs one of \(known)") }
        guard let wakeReason = WakeReason(rawValue: reason) else {
            throw fail("field 'reason': unknown wake-up reason '\(reason)'; expected one of \(known)")
        }
        return .wake(wakeReason, payload: payload ?? "")
    }

    private static func action(
        _ name: String,
        task: String?,
        seconds: Double?,
        fail: (String) -> ScenarioError
    ) throws(ScenarioError) -> Step.Action {
        if let command = Command(rawValue: name) { return .lifecycle(command) }
        if let action = UserAction(rawValue: name) { return .userAction(action) }
        switch name {
        case "beginTask":
            guard let task else { throw fail("field 'task' is missing: beginTask needs the task's name") }
            return .beginTask(task)
        case "endTask": return .endTask(task)
        case "extend":
            guard let seconds, seconds > 0, let span = TimeSpan.seconds(seconds) else {
                throw fail("field 'seconds': extend needs a number of seconds > 0")
            }
            return .extend(span)
        case "expire": return .expire
        case "purge": return .purge
        case "memoryWarning": return .memoryWarning
        default:
            let known = Command.allCases.map(\.rawValue) + UserAction.allCases.map(\.rawValue) + self.operations
            throw fail("field 'do': unknown action '\(name)'; expected one of \(known.joined(separator: ", "))")
        }
    }
}

/// One line as written; `Scenario.step` checks it.
private struct RawStep: Decodable {
    var at: Double?
    var app: String?
    var `do`: String?
    var task: String?
    var seconds: Double?
    var expect: String?
    var reason: String?
    var restarts: Int?
    var payload: String?
}

/// A scenario file that cannot be played: where (`file:line`) and what is wrong.
package struct ScenarioError: Error, CustomStringConvertible {
    package var location: String
    package var message: String

    package var description: String { "\(self.location): \(self.message)" }
}
