// State restoration on the app's side (Behaviour.md R1, R2; Docs/AppProtocol.md): an app hands Runway an opaque
// state, typically in `didEnterBackground`, and a later launch that restores hands it back before
// `didFinishLaunching`, with how the run that preserved it ended.
//
// The protocol carries state as text. `preserveState(_:)` takes bytes and sends them base64-encoded, so any bytes
// survive and a part never needs a JSON escape; `preserveState(text:)` sends text as it is, for an app whose state is
// already text (JSON). Either way the state is cut into parts (`preserveState` lines with `more: true`, then the last
// one) so that no line comes near the protocol's 64 KiB limit, and Runway answers the last part once the whole state
// is stored durably. `StateRestorationByteLimit` (Runway.plist, default 1 MiB) bounds the stored text: base64 makes
// bytes a third larger, so `preserveState(_:)` stores at most three quarters of the limit in bytes.

import Foundation
import RunwayCore

/// What a launch that restores hands the app: its preserved state and how the run that preserved it ended.
public struct Restoration: Hashable, Sendable {
    /// The state as Runway stored it: the text the app preserved.
    public var text: String
    /// How the run that preserved the state ended (`purged`, `shutdown`, `daemonRestart`, `reboot`, ...;
    /// Docs/AppProtocol.md lists them).
    public var reason: String

    /// The bytes given to `preserveState(_:)`: `text` base64-decoded, or nil when it is not base64 (the state was
    /// preserved with `preserveState(text:)` or by another client).
    public var bytes: [UInt8]? { Data(base64Encoded: self.text).map { Array($0) } }

    public init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }
}

extension RunwayClient {
    /// State text per `preserveState` part for base64: 32 KiB, never escaped in JSON.
    static let base64PartBytes = 32_768
    /// State text per `preserveState` part for any text: 8 KiB, at most 48 KiB once JSON escapes it (a control
    /// character becomes six bytes).
    static let textPartBytes = 8_192

    /// The restoration of this run, or nil when the launch restored nothing. Set before `didFinishLaunching` is
    /// handed to `run`'s handler, and never changed after.
    public var restoration: Restoration? { self.state.withLock { $0.restoration } }

    /// Handles lifecycle messages as `run(_:)` does, handing `didFinishLaunching` of a launch that restores its
    /// `Restoration` (nil for every other message and for a launch that restores nothing).
    public func run(_ handler: @Sendable (Message, Restoration?) async -> Void) async {
        await self.run { message in
            await handler(message, message == .didFinishLaunching ? self.restoration : nil)
        }
    }

    /// Preserves `state` (any bytes, sent base64-encoded) and returns once Runway has stored it durably: a later
    /// launch that restores hands it back as `Restoration.bytes`. The newest complete state wins.
    ///
    /// - Throws: `RunwayClientError.refused` with code `stateTooLarge` (naming `StateRestorationByteLimit`) when the
    ///   encoded state is over the limit, in which case the state stored before stays; `.closed`.
    public func preserveState(_ state: [UInt8]) async throws {
        try await self.preserve(
            parts: Self.parts(of: Data(state).base64EncodedString(), maximumBytes: Self.base64PartBytes)
        )
    }

    /// Preserves `text` as it is (for example JSON): a later launch that restores hands it back as
    /// `Restoration.text`.
    ///
    /// - Throws: as `preserveState(_:)`.
    public func preserveState(text: String) async throws {
        try await self.preserve(parts: Self.parts(of: text, maximumBytes: Self.textPartBytes))
    }

    /// Removes the preserved state; returns once it is gone. The next launch starts from nothing.
    public func discardState() async throws {
        let reply = try await self.request { .discardState(request: $0) }
        guard case .taskEnded = reply else { throw RunwayClientError.unexpectedReply("\(reply)") }
    }

    private func preserve(parts: [String]) async throws {
        for (index, part) in parts.enumerated() {
            let more = index < parts.count - 1
            do {
                let reply = try await self.request { .preserveState(request: $0, state: part, more: more) }
                guard case .taskEnded = reply else { throw RunwayClientError.unexpectedReply("\(reply)") }
            } catch RunwayClientError.refused(let code, let message) where more && code == "stateTooLarge" {
                // Runway refuses every part of a refused state up to its last one: end it, so that the next state
                // this app preserves is taken. Its refusal says the same.
                _ = try? await self.request { .preserveState(request: $0, state: "", more: false) }
                throw RunwayClientError.refused(code: code, message: message)
            }
        }
    }

    /// `text` cut into parts of at most `maximumBytes` UTF-8 bytes each, at Unicode scalar boundaries, whose
    /// concatenation is `text`; one empty part for an empty text (the empty state).
    ///
    /// - Precondition: `maximumBytes` >= 4, the longest scalar.
    static func parts(of text: String, maximumBytes: Int) -> [String] {
        precondition(maximumBytes >= 4, "A part must hold any scalar; maximumBytes=\(maximumBytes)")
        var parts: [String] = []
        var current = String.UnicodeScalarView()
        var currentBytes = 0
        for scalar in text.unicodeScalars {
            let size = String(scalar).utf8.count
            if currentBytes + size > maximumBytes {
                parts.append(String(current))
                current = String.UnicodeScalarView()
                currentBytes = 0
            }
            current.append(scalar)
            currentBytes += size
        }
        parts.append(String(current))
        return parts
    }

    /// A `restoredState` part arrived (before `didFinishLaunching`; reader thread).
    func restoredStatePartReceived(_ part: String) {
        self.state.withLock { $0.restoredText.append(part) }
    }

    /// `didFinishLaunching` of a launch that restores arrived: the parts so far are its state (reader thread).
    func restoringLaunchReceived(reason: String) {
        self.state.withLock { state in
            state.restoration = Restoration(text: state.restoredText, reason: reason)
            state.restoredText = ""
        }
    }
}
