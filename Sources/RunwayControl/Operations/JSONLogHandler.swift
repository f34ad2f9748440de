import Foundation
import Logging
import Runway
import RunwayLoop
import RunwayProcesses

/// A swift-log handler that writes one JSON object per line, for log aggregators (`LogFormat json`,
/// `runway run --log-format json`): `{"time":"2026-11-23T12:00:00.123456Z","level":"info","label":"runway",
/// "message":"transition","metadata":{"app":"com.example.sync","messages":["willResignActive"],...}}`. Keys in that
/// order; `metadata` only when there is some, and `error` when the event carries one. Values keep their structure:
/// nested metadata becomes JSON objects and arrays, an integer, finite floating-point or Boolean value given as
/// `.stringConvertible` a JSON number or `true`/`false`, and every other value its description as a string, so
/// that an aggregator can filter on `pid > 0` or index into `messages` without parsing a string a second time.
/// (swift-log's `StreamLogHandler` writes text only.)
///
/// Threading: any thread; each line is handed to `write` whole, in one call, which does not block on the
/// reader. Time: the wall clock
/// (`CLOCK_REALTIME`), UTC, microseconds.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    private let write: @Sendable (String) -> Void

    /// - Parameter write: Receives each line, with its newline; default standard error's queue (DaemonOutputStream).
    init(label: String, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.write = write
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = self.metadata
        if let provided = self.metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        var line = "{\"time\":\(Self.quoted(Self.timestamp()))"
        line += ",\"level\":\(Self.quoted(event.level.rawValue))"
        line += ",\"label\":\(Self.quoted(self.label))"
        line += ",\"message\":\(Self.quoted(event.message.description))"
        if !merged.isEmpty { line += ",\"metadata\":\(Self.json(.dictionary(merged)))" }
        if let error = event.error { line += ",\"error\":\(Self.quoted(String(describing: error)))" }
        line += "}\n"
        self.write(line)
    }

    static let standardError: @Sendable (String) -> Void = { line in
        DaemonOutputStream.standardError.write(line)
    }

    /// `2026-11-23T12:00:00.123456Z`.
    static func timestamp() -> String {
        WallTime.now().iso8601(fractionDigits: 6)
    }

    /// A metadata value as JSON, keys sorted so that lines are stable.
    static func json(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text):
            return Self.quoted(text)
        case .stringConvertible(let convertible):
            return Self.scalar(convertible)
        case .array(let values):
            return "[" + values.map(Self.json).joined(separator: ",") + "]"
        case .dictionary(let entries):
            let members = entries.sorted { $0.key < $1.key }.map { "\(Self.quoted($0.key)):\(Self.json($0.value))" }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    /// A number or Boolean as itself; anything else, a non-finite number included, as its description quoted.
    static func scalar(_ value: any CustomStringConvertible & Sendable) -> String {
        switch value {
        case let flag as Bool: return flag ? "true" : "false"
        case let integer as any BinaryInteger: return "\(integer)"
        case let number as Double where number.isFinite: return "\(number)"
        case let number as Float where number.isFinite: return "\(number)"
        default: return Self.quoted(value.description)
        }
    }

    /// A JSON string literal (RFC 8259): quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String { JSONText.quoted(text) }
}
