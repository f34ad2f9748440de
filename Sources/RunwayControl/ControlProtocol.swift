// The control protocol, version 1 (Behaviour.md K1), as Codable values: requests, replies and event lines, one JSON
// object per line. Docs/ControlProtocol.md is the reference; keep the two in step.

import Foundation
@_spi(Driver) import RunwayCore

/// Protocol constants.
package enum ControlProtocol {
    /// The version this daemon and client speak. A request with another `v` is refused (`unsupportedVersion`).
    package static let version = 1
    /// Longest request line in bytes, without its newline (64 KiB).
    package static let maxLineBytes = 65_536

    /// One line: compact JSON with sorted keys, then a newline.
    package static func encodedLine(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every value here is plain data (strings, numbers, arrays): encoding cannot fail.
        guard let data = try? encoder.encode(value) else {
            preconditionFailure("Control reply failed to encode: \(value)")
        }
        return Array(data) + [UInt8(ascii: "\n")]
    }
}

/// A request line. Only `command` is required; which other fields matter depends on it.
package struct ControlRequest: Codable, Hashable, Sendable {
    /// The protocol version; absent means 1.
    package var v: Int?
    /// Echoed in the reply, so a client can match replies to requests.
    package var id: Int?
    /// What to do: see `ControlCommand`.
    package var command: String
    /// The app's bundle identifier, for app commands (and optionally `status`). A user action that is a device
    /// event (`lock`, `unlock`, `offerShutdown`, `cancelShutdown`, `acceptShutdown`, `alert`, `alertIgnored`,
    /// `alertAnswered`) without it is device-wide.
    package var app: String?
    /// For `extend`: seconds to add (> 0).
    package var seconds: Double?
    /// For `reload`: report what would change without applying it.
    package var dryRun: Bool?
    /// For `beginTask`: the task's name.
    package var task: String?
    /// For `endTask`: the id `beginTask` returned.
    package var taskID: UInt64?
    /// For `notify`: the notification's name (N1).
    package var name: String?
    /// For `notify`: the notification's payload, opaque text (the CLI sends JSON); absent means empty. Also the
    /// payload of `wake` (W5: at most `BackgroundWakePayloadByteLimit` bytes).
    package var payload: String?
    /// For `logs`: the last this many lines (0 or more); absent means every line in the ring.
    package var lines: Int?
    /// For `logs`: the previous run's ring instead of the current (or last) run's.
    package var previous: Bool?
    /// For `logs`: after the reply, stream the app's new lines until the client disconnects.
    package var follow: Bool?
    /// For `logs`: only `stdout` or `stderr`; absent means both.
    package var stream: String?
    /// For `wake`: `fetch`, `remote-notification` or `refresh` (W1).
    package var reason: String?
    /// For `status`: include each app's run history (`history`). Absent: only when `app` names one app, so that a
    /// plain `status` (the table, `--watch`) does not make the daemon copy and encode every app's history.
    package var history: Bool?
    /// For `status`: list every outstanding task of each app. Absent or false: the first
    /// `ControlService.statusTaskLimit` per app, with `tasksTotal` counting them all.
    package var tasks: Bool?
    /// For `status`: only apps in this state (`notRunning`, `inactive`, `active`, `background`, `suspended`).
    package var state: String?
    /// For `status`: only apps whose bundle identifier matches this pattern (`*` any run, `?` one character).
    package var appPattern: String?
    /// For `status`: the most apps in the reply, 1 ... `ControlService.statusPageLimit` (also the default).
    package var limit: Int?
    /// For `status`: the page starts after this app (the previous reply's `next`), in registration order.
    package var after: String?
    /// For `status`: counts over every app instead of rows (`summary` in the reply); no filter or page with it.
    package var summary: Bool?
    /// For `importState`: more parts of the export follow this one (its `payload`, base64).
    package var more: Bool?

    package init(
        command: String,
        app: String? = nil,
        seconds: Double? = nil,
        dryRun: Bool? = nil,
        task: String? = nil,
        taskID: UInt64? = nil,
        name: String? = nil,
        payload: String? = nil,
        id: Int? = nil,
        lines: Int? = nil,
        previous: Bool? = nil,
        follow: Bool? = nil,
        stream: String? = nil,
        reason: String? = nil,
        history: Bool? = nil,
        tasks: Bool? = nil,
        state: String? = nil,
        appPattern: String? = nil,
        limit: Int? = nil,
        after: String? = nil,
        summary: Bool? = nil,
        more: Bool? = nil
    ) {
        self.v = ControlProtocol.version
        self.id = id
        self.command = command
        self.app = app
        self.seconds = seconds
        self.dryRun = dryRun
        self.task = task
        self.taskID = taskID
        self.name = name
        self.payload = payload
        self.lines = lines
        self.previous = previous
        self.follow = follow
        self.stream = stream
        self.reason = reason
        self.history = history
        self.tasks = tasks
        self.state = state
        self.appPattern = appPattern
        self.limit = limit
        self.after = after
        self.summary = summary
        self.more = more
    }
}

/// Every `command` a request may name.
package enum ControlCommand: Hashable, Sendable {
    case status
    case events
    case reload
    case extend
    case expire
    /// Begin a background task on the app's behalf (held by the daemon until `endTask`).
    case beginTask
    case endTask
    /// Post a host notification to the app (N1).
    case notify
    /// `didReceiveMemoryWarning` to one app, or without an app to every running app (P3).
    case memoryWarning
    /// Purge one app as under critical memory pressure (P3).
    case purge
    /// A process app's captured stdout and stderr (`runway logs`), optionally followed.
    case logs
    /// Wake the app in the background for a fetch or a remote notification (W1).
    case wake
    /// An app's preserved state (R7): remove it, read it as an export, or store an export (in parts).
    case discardState, exportState, importState
    /// A lifecycle command of Behaviour.md section 2 (`launch`, `enterBackground`, ...).
    case lifecycle(Command)
    /// A composite user action of Behaviour.md section 4 (`home`, `lock`, ...).
    case userAction(UserAction)

    package init?(_ name: String) {
        switch name {
        case "status": self = .status
        case "events": self = .events
        case "reload": self = .reload
        case "extend": self = .extend
        case "expire": self = .expire
        case "beginTask": self = .beginTask
        case "endTask": self = .endTask
        case "notify": self = .notify
        case "memoryWarning": self = .memoryWarning
        case "purge": self = .purge
        case "logs": self = .logs
        case "wake": self = .wake
        case "discardState": self = .discardState
        case "exportState": self = .exportState
        case "importState": self = .importState
        default:
            if let command = Command(rawValue: name) {
                self = .lifecycle(command)
            } else if let action = UserAction(rawValue: name) {
                self = .userAction(action)
            } else {
                return nil
            }
        }
    }

    /// Every valid name, for the `unknownCommand` error.
    package static var allNames: [String] {
        ["status", "events", "reload", "extend", "expire", "beginTask", "endTask", "notify", "memoryWarning", "purge"]
            + ["logs"]
            + ["wake"]
            + ["discardState", "exportState", "importState"]
            + Command.allCases.map(\.rawValue)
            + UserAction.allCases.map(\.rawValue)
    }

    var needsApp: Bool {
        switch self {
        case .status, .events, .reload, .memoryWarning, .purge: return false
        case .userAction(let action): return DeviceEvent(rawValue: action.rawValue) == nil
        case .extend, .expire, .beginTask, .endTask, .notify, .lifecycle: return true
        case .logs: return true
        case .wake: return true
        case .discardState, .exportState, .importState: return true
        }
    }
}

/// A reply line: `ok` with the fields of the command, or `error`.
package struct ControlReply: Codable, Hashable, Sendable {
    package var v = ControlProtocol.version
    package var id: Int?
    package var ok: Bool
    package var error: ControlErrorPayload?
    /// `status`: the daemon.
    package var daemon: DaemonInfo?
    /// `status`: the apps of this page that match (or the one asked for), in registration order.
    package var apps: [AppStatusPayload]?
    /// `status`: how many apps match the filter in all, on every page.
    package var matched: Int?
    /// `status`: when more matching apps follow this page, its last app: the `after` of the next request.
    package var next: String?
    /// `status` with `summary`: counts over every app.
    package var summary: StatusSummaryPayload?
    /// App commands: the app's state once the command was accepted (messages are delivered afterwards).
    package var state: String?
    /// App commands: the reason of the termination the app is in once the command was accepted (a `terminate`
    /// that waits for the app to exit); absent when none runs. `state` is then the state it terminates from.
    package var terminating: String?
    /// App commands: true when the kernel refused the signal of the suspension or resumption the command caused
    /// (P1: the daemon lacks CAP_KILL and the app runs as another user); absent otherwise.
    package var suspensionRefused: Bool?
    /// A device-wide user action (no `app`): the apps it reached, in registration order; empty when none.
    package var reached: [String]?
    /// `reload`: what changed (or, with `dryRun`, would change).
    package var reload: ReloadReport?
    /// `purge`: the app purged; absent when none could be (P8: no app suspended or in the background).
    package var purged: String?
    /// `beginTask`: the new task's id.
    package var task: UInt64?
    /// `events`: true; event lines follow until the client disconnects.
    package var subscribed: Bool?
    /// `logs`: the lines asked for and the ring's bounds.
    package var logs: AppLogsPayload?
    /// `wake`: the wake-up's token, as the app receives it (W4).
    package var wake: UInt64?
    /// `exportState`: the app's preserved state as an export (the store's self-describing format), base64.
    package var exported: String?
    /// `importState`: the bytes of the export received so far on this connection (all of it after the last part).
    package var received: Int?

    package init(id: Int?, ok: Bool) {
        self.id = id
        self.ok = ok
    }

    package static func failure(_ code: String, _ message: String, id: Int? = nil) -> ControlReply {
        var reply = ControlReply(id: id, ok: false)
        reply.error = ControlErrorPayload(code: code, message: message)
        return reply
    }
}
