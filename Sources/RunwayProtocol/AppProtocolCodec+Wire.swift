import RunwayCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The codec's two halves below the lines: lifecycle messages to and from their wire names, and a `WireLine` to and
// from JSON with errors that name the field (A5).
extension AppProtocolCodec {
    // MARK: Messages

    static func fill(_ wire: inout WireLine, with message: Message) {
        switch message {
        case .backgroundTaskWillExpire(let id):
            wire.message = "backgroundTaskWillExpire"
            wire.task = id.rawValue
        case .notification(let name, let payload):
            wire.message = "notification"
            wire.name = name
            wire.payload = payload
        case .backgroundWake(let reason, let payload, let token):
            wire.message = "backgroundWake"
            wire.reason = reason.rawValue
            wire.payload = payload
            wire.wake = token.rawValue
        default:
            wire.message = message.description
        }
    }

    static func message(from wire: WireLine) throws(AppProtocolError) -> Message {
        let name = try Self.require(wire.message, "message", "a lifecycle message name", wire)
        switch name {
        case "didFinishLaunching": return .didFinishLaunching
        case "willResignActive": return .willResignActive
        case "didBecomeActive": return .didBecomeActive
        case "didEnterBackground": return .didEnterBackground
        case "willEnterForeground": return .willEnterForeground
        case "willTerminate": return .willTerminate
        case "didReceiveMemoryWarning": return .didReceiveMemoryWarning
        case "backgroundTaskWillExpire":
            return .backgroundTaskWillExpire(
                BackgroundTaskID(rawValue: try Self.require(wire.task, "task", "a task id", wire))
            )
        case "notification":
            return .notification(
                name: try Self.require(wire.name, "name", "a string", wire),
                payload: wire.payload ?? ""
            )
        case "backgroundWake":
            let reason = try Self.require(wire.reason, "reason", "a wake-up reason", wire)
            guard let known = WakeReason(rawValue: reason) else {
                throw AppProtocolError(code: "invalidField", message: "reason '\(reason)' is not a wake-up reason")
            }
            return .backgroundWake(
                reason: known,
                payload: wire.payload ?? "",
                token: WakeToken(rawValue: try Self.require(wire.wake, "wake", "a wake-up token", wire))
            )
        default:
            throw AppProtocolError(code: "invalidField", message: "message '\(name)' is not a lifecycle message")
        }
    }

    // MARK: Wire

    static func encodeWire(_ wire: WireLine) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // WireLine holds only strings, integers, finite doubles and booleans: encoding cannot fail.
        guard let data = try? encoder.encode(wire) else { preconditionFailure("Encoding \(wire.type) line failed") }
        return Array(data)
    }

    /// Decodes one line; a field of the wrong kind, or a number it cannot hold (a negative, fractional or too large
    /// token), is `invalidField` naming it, with the line's `request` when that field alone reads as one (A5), so
    /// that the app waiting for that request's reply gets this error instead.
    static func decodeWire(_ bytes: [UInt8]) throws(AppProtocolError) -> WireLine {
        let data = Data(bytes)
        func failure(_ code: String, _ message: String) -> AppProtocolError {
            AppProtocolError(
                code: code,
                message: message,
                request: (try? JSONDecoder().decode(RequestIDOnly.self, from: data))?.request
            )
        }
        do {
            return try JSONDecoder().decode(WireLine.self, from: data)
        } catch DecodingError.keyNotFound(let key, _) {
            throw failure("missingField", "field '\(key.stringValue)' is missing")
        } catch DecodingError.typeMismatch(let type, let context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw failure("invalidField", "field '\(path)' should be \(Self.describe(type))")
        } catch DecodingError.valueNotFound(let type, let context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw failure("invalidField", "field '\(path)' is null; expected \(Self.describe(type))")
        } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw failure("invalidField", "field '\(path)' should be \(context.debugDescription)")
        } catch {
            guard String(validating: bytes, as: UTF8.self) != nil else {
                // JSON text is UTF-8. The request, read with the bad bytes replaced, gets the error (A5).
                let repaired = Data(String(decoding: bytes, as: UTF8.self).utf8)
                throw AppProtocolError(
                    code: "invalidJSON",
                    message: "the line is not UTF-8 text (JSON text is UTF-8; send binary data encoded, e.g. base64)",
                    request: (try? JSONDecoder().decode(RequestIDOnly.self, from: repaired))?.request
                )
            }
            throw AppProtocolError(code: "invalidJSON", message: "the line is not a JSON object with a string 'type'")
        }
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Double.Type: return "a number"
        default: return "an integer"
        }
    }

    static func require<T>(
        _ value: T?,
        _ field: String,
        _ expected: String,
        _ wire: WireLine
    ) throws(AppProtocolError) -> T {
        guard let value else {
            throw AppProtocolError(
                code: "missingField",
                message: "a '\(wire.type)' line needs field '\(field)': \(expected)",
                request: wire.request
            )
        }
        return value
    }
}
