// The app protocol (Behaviour.md A4, A5): JSON lines between the scheduler and a process app that declares
// `RunwayProtocol = 1`, over a Unix stream socket the child inherits (its descriptor number is in `RUNWAY_FD`).
// Docs/AppProtocol.md is the schema for people writing clients in other languages.
//
// Each line is one JSON object with a `type` field. Runway → app: `hello`, `message`, `reply`, `error`,
// `restoredState`. App → Runway: `ack`, `beginBackgroundTask`, `endBackgroundTask`, `backgroundTimeRemaining`,
// `backgroundWakeCompleted`, `scheduleRefresh`, `preserveState`, `discardState`.
// Lines are at most `AppProtocol.maximumLineBytes` bytes (without the newline).

import RunwayCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Constants of the app protocol, version 1.
package enum AppProtocol {
    /// The protocol version this module speaks (plist `RunwayProtocol = 1`).
    package static let version = 1
    /// The environment variable that holds the inherited descriptor's number.
    package static let descriptorEnvironmentKey = "RUNWAY_FD"
    /// The environment variable that holds the app's bundle identifier.
    package static let appEnvironmentKey = "RUNWAY_APP"
    /// The longest line either side may send, in bytes without the newline: 64 KiB.
    package static let maximumLineBytes = 65_536
    /// The most state text in one `restoredState` line, in bytes once escaped for JSON (a quote or a backslash
    /// takes two, a control character six): every line stays at half of `maximumLineBytes`, whatever the state.
    package static let restoredStatePartBytes = 32_768
}

/// A line from Runway to the app.
package enum RunwayToApp: Hashable, Sendable {
    /// The first line on the channel: who the app is and which protocol version is spoken.
    case hello(app: String, version: Int)
    /// A lifecycle message. The app answers `ack` with the same token when it has handled it (L2); nothing
    /// else is sent to the app until then.
    case message(token: UInt64, Message)
    /// `beginBackgroundTask` answered: the new task's id, or 0 (`invalid`) with the refusal's reason.
    case taskBegun(request: Int64, task: UInt64, refusal: String?)
    /// `endBackgroundTask` succeeded; also the plain reply of `backgroundWakeCompleted` and `scheduleRefresh`.
    case taskEnded(request: Int64)
    /// `backgroundTimeRemaining` answered in seconds; nil means unlimited (foreground, background modes).
    case timeRemaining(request: Int64, seconds: Double?)
    /// A request failed, or a line could not be understood (`request` is nil then).
    case error(request: Int64?, code: String, message: String)
    /// One part of the state a restoring launch hands back (R2), before its `didFinishLaunching`; `more` is false
    /// on the last part. Not a message: no token, no ack.
    case restoredState(state: String, more: Bool)
    /// `didFinishLaunching` of a launch that restores: `restoration` is how the run that preserved the state ended
    /// (a `RunEnding` raw value). Acknowledged like any message.
    case restoringLaunch(token: UInt64, restoration: String)
}

/// A line from the app to Runway.
package enum AppToRunway: Hashable, Sendable {
    /// The message with this token has been handled.
    case ack(token: UInt64)
    case beginBackgroundTask(request: Int64, name: String)
    case endBackgroundTask(request: Int64, task: UInt64)
    case backgroundTimeRemaining(request: Int64)
    /// Completion of the background wake-up with this token (W4).
    case backgroundWakeCompleted(request: Int64, wake: UInt64)
    /// A refresh no earlier than `seconds` from now (W7); a negative number withdraws the pending request.
    case scheduleRefresh(request: Int64, seconds: Double)
    /// One part of a state to preserve (R1); `more` is false on the last part, which is answered once the whole
    /// state is stored durably.
    case preserveState(request: Int64, state: String, more: Bool)
    /// Remove the stored state (R7).
    case discardState(request: Int64)

    /// The request id, for the error reply to a request that failed.
    package var request: Int64? {
        switch self {
        case .ack: return nil
        case .beginBackgroundTask(let request, _), .endBackgroundTask(let request, _),
            .backgroundTimeRemaining(let request), .backgroundWakeCompleted(let request, _),
            .scheduleRefresh(let request, _), .preserveState(let request, _, _), .discardState(let request):
            return request
        }
    }
}

/// A line that does not follow the protocol; `description` names the field and what was expected.
package struct AppProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable code for the error line: `invalidJSON`, `missingField`, `invalidField`, `unknownType`, `lineTooLong`.
    package var code: String
    package var message: String
    /// The request id, when the line had a readable one.
    package var request: Int64?

    package init(code: String, message: String, request: Int64? = nil) {
        self.code = code
        self.message = message
        self.request = request
    }

    package var description: String { "\(self.code): \(self.message)" }
}

/// Every field any line may carry; each line uses a few. Absent fields are omitted when encoding; the
/// memberwise initializer leaves every field not named absent.
struct WireLine: Codable {
    var type: String
    var version: Int?
    var app: String?
    var token: UInt64?
    var message: String?
    var task: UInt64?
    var name: String?
    var payload: String?
    var request: Int64?
    var refusal: String?
    var seconds: Double?
    var unlimited: Bool?
    var code: String?
    var error: String?
    /// A background wake-up's reason and token (W1, W4).
    var reason: String?
    var wake: UInt64?
    /// State restoration (R1, R2): a part of a state, whether more parts follow, and how the preserving run ended.
    var state: String?
    var more: Bool?
    var restoration: String?
}

/// Encodes and decodes protocol lines. Stateless and thread-safe.
package enum AppProtocolCodec {
    /// One line of JSON for `line`, without the newline.
    package static func encode(_ line: RunwayToApp) -> [UInt8] {
        switch line {
        case .hello(let app, let version):
            return Self.encodeWire(WireLine(type: "hello", version: version, app: app))
        case .message(let token, let message):
            var wire = WireLine(type: "message", token: token)
            Self.fill(&wire, with: message)
            return Self.encodeWire(wire)
        case .taskBegun(let request, let task, let refusal):
            return Self.encodeWire(WireLine(type: "reply", task: task, request: request, refusal: refusal))
        case .taskEnded(let request):
            return Self.encodeWire(WireLine(type: "reply", request: request))
        case .timeRemaining(let request, let seconds):
            let wire = WireLine(type: "reply", request: request, seconds: seconds, unlimited: seconds == nil)
            return Self.encodeWire(wire)
        case .error(let request, let code, let message):
            return Self.encodeWire(WireLine(type: "error", request: request, code: code, error: message))
        case .restoredState(let state, let more):
            return Self.encodeWire(WireLine(type: "restoredState", state: state, more: more ? true : nil))
        case .restoringLaunch(let token, let restoration):
            var wire = WireLine(type: "message", token: token, restoration: restoration)
            Self.fill(&wire, with: .didFinishLaunching)
            return Self.encodeWire(wire)
        }
    }

    /// One line of JSON for `line`, without the newline.
    package static func encode(_ line: AppToRunway) -> [UInt8] {
        switch line {
        case .ack(let token):
            return Self.encodeWire(WireLine(type: "ack", token: token))
        case .beginBackgroundTask(let request, let name):
            return Self.encodeWire(WireLine(type: "beginBackgroundTask", name: name, request: request))
        case .endBackgroundTask(let request, let task):
            return Self.encodeWire(WireLine(type: "endBackgroundTask", task: task, request: request))
        case .backgroundTimeRemaining(let request):
            return Self.encodeWire(WireLine(type: "backgroundTimeRemaining", request: request))
        case .backgroundWakeCompleted(let request, let wake):
            return Self.encodeWire(WireLine(type: "backgroundWakeCompleted", request: request, wake: wake))
        case .scheduleRefresh(let request, let seconds):
            return Self.encodeWire(WireLine(type: "scheduleRefresh", request: request, seconds: seconds))
        case .preserveState(let request, let state, let more):
            return Self.encodeWire(
                WireLine(type: "preserveState", request: request, state: state, more: more ? true : nil)
            )
        case .discardState(let request):
            return Self.encodeWire(WireLine(type: "discardState", request: request))
        }
    }

    /// Decodes a line the app sent.
    ///
    /// - Throws: `AppProtocolError` naming the field and what was expected.
    package static func decodeAppLine(_ bytes: [UInt8]) throws(AppProtocolError) -> AppToRunway {
        let wire = try Self.decodeWire(bytes)
        switch wire.type {
        case "ack":
            return .ack(token: try Self.require(wire.token, "token", "a message token (integer)", wire))
        case "beginBackgroundTask":
            let request = try Self.require(wire.request, "request", "a request id (integer)", wire)
            return .beginBackgroundTask(request: request, name: wire.name ?? "")
        case "endBackgroundTask":
            let request = try Self.require(wire.request, "request", "a request id (integer)", wire)
            return .endBackgroundTask(
                request: request,
                task: try Self.require(wire.task, "task", "a task id (integer)", wire)
            )
        case "backgroundTimeRemaining":
            return .backgroundTimeRemaining(
                request: try Self.require(wire.request, "request", "a request id (integer)", wire)
            )
        case "backgroundWakeCompleted":
            let request = try Self.require(wire.request, "request", "a request id (integer)", wire)
            return .backgroundWakeCompleted(
                request: request,
                wake: try Self.require(wire.wake, "wake", "the wake-up's token (integer)", wire)
            )
        case "scheduleRefresh":
            let request = try Self.require(wire.request, "request", "a request id (integer)", wire)
            let seconds = try Self.require(wire.seconds, "seconds", "a number of seconds (negative: cancel)", wire)
            guard seconds.isFinite else {
                throw AppProtocolError(
                    code: "invalidField",
                    message: "field 'seconds' should be a finite number",
                    request: request
                )
            }
            return .scheduleRefresh(request: request, seconds: seconds)
        case "preserveState":
            let request = try Self.require(wire.request, "request", "a request id (integer)", wire)
            let state = try Self.require(wire.state, "state", "a part of the state (string)", wire)
            return .preserveState(request: request, state: state, more: wire.more ?? false)
        case "discardState":
            return .discardState(request: try Self.require(wire.request, "request", "a request id (integer)", wire))
        default:
            throw AppProtocolError(
                code: "unknownType",
                message: "type '\(wire.type)' is not one of ack, beginBackgroundTask, endBackgroundTask, "
                    + "backgroundTimeRemaining, backgroundWakeCompleted, scheduleRefresh, preserveState, discardState",
                request: wire.request
            )
        }
    }

    /// Decodes a line Runway sent (for clients).
    ///
    /// - Throws: `AppProtocolError` naming the field and what was expected.
    package static func decodeRunwayLine(_ bytes: [UInt8]) throws(AppProtocolError) -> RunwayToApp {
        let wire = try Self.decodeWire(bytes)
        switch wire.type {
        case "hello":
            return .hello(app: wire.app ?? "", version: try Self.require(wire.version, "version", "an integer", wire))
        case "message":
            let token = try Self.require(wire.token, "token", "a message token (integer)", wire)
            let message = try Self.message(from: wire)
            if message == .didFinishLaunching, let restoration = wire.restoration {
                return .restoringLaunch(token: token, restoration: restoration)
            }
            return .message(token: token, message)
        case "reply":
            let request = try Self.require(wire.request, "request", "a request id (integer)", wire)
            if let task = wire.task { return .taskBegun(request: request, task: task, refusal: wire.refusal) }
            if wire.unlimited == true { return .timeRemaining(request: request, seconds: nil) }
            if let seconds = wire.seconds { return .timeRemaining(request: request, seconds: seconds) }
            return .taskEnded(request: request)
        case "error":
            return .error(request: wire.request, code: wire.code ?? "error", message: wire.error ?? "")
        case "restoredState":
            let state = try Self.require(wire.state, "state", "a part of the restored state (string)", wire)
            return .restoredState(state: state, more: wire.more ?? false)
        default:
            throw AppProtocolError(
                code: "unknownType",
                message: "type '\(wire.type)' is not one of hello, message, reply, error, restoredState"
            )
        }
    }
}
