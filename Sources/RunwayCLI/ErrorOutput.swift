import Foundation
import RunwayControl

/// Where and how the CLI prints an error: `error: MESSAGE` on standard error, or, when the command line holds
/// `--json` (before any `--`), one JSON line on standard output in the shape of the protocol's error replies,
/// `{"error":{"code":...,"message":...},"ok":false,"v":1}` (with `suggestions` when there are some), and nothing on
/// standard error. The exit status is the same either way (README, Docs/ControlProtocol.md "The CLI's --json").
///
/// Threading: the mode is read once from the process's arguments; `report` may be called from any thread (each
/// line is one unbuffered write).
enum ErrorOutput {
    /// True when the command line asks for JSON (`--json` before a `--`).
    static let json: Bool = Self.asksForJSON(Array(CommandLine.arguments.dropFirst()))

    /// True when `arguments` (without the program name) hold `--json` before any `--`.
    static func asksForJSON(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--json")
    }

    /// Prints one error: `error: MESSAGE` (and `did you mean` with the suggestions) on standard error, or its JSON
    /// line on standard output under `--json`.
    ///
    /// - Parameters:
    ///   - code: A protocol error code (`unknownApp`, ...) or one of the CLI's own (`usage`, `unknownSubcommand`,
    ///     `badConfig`, `unreachable`, `permissionDenied`, `badPath`, `noReply`, `badReply`, `daemonStopped`).
    ///   - suggestions: Close matches of a mistyped name, best first; may be empty.
    static func report(code: String, message: String, suggestions: [String] = []) {
        if Self.json {
            writeOut(Self.jsonLine(code: code, message: message, suggestions: suggestions) + "\n")
        } else {
            printError("error: " + message + Suggestions.sentence(suggestions))
        }
    }

    /// `{"error":{"code":...,"message":...[,"suggestions":[...]]},"ok":false,"v":1}`, keys sorted.
    static func jsonLine(code: String, message: String, suggestions: [String] = []) -> String {
        let line = ErrorLine(
            error: ErrorLine.Payload(
                code: code,
                message: message + Suggestions.sentence(suggestions),
                suggestions: suggestions.isEmpty ? nil : suggestions
            )
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(line)) ?? Data(#"{"ok":false,"v":1}"#.utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The JSON error line: the protocol's error reply, plus `suggestions`.
    private struct ErrorLine: Encodable {
        struct Payload: Encodable {
            var code: String
            var message: String
            var suggestions: [String]?
        }
        var error: Payload
        var ok = false
        var v = ControlProtocol.version
    }
}
