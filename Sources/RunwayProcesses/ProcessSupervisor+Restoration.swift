@_spi(Processes) @_spi(Driver) import RunwayCore
import RunwayProtocol

/// A launch that restores (Behaviour.md R2): the state goes to the app as `restoredState` lines, each at most
/// `AppProtocol.restoredStatePartBytes` of escaped state text, then `didFinishLaunching` with `restoration`. Loop
/// thread only.
///
/// The lines of a state of `StateRestorationByteLimit` (1 MiB by default) are queued at once, and JSON may escape a
/// byte into six, so they could cross the unread-bytes limit (`ProtocolWriteQueueLimitBytes`, 1 MiB) before the app
/// has had a chance to read them: the app would be terminated for not reading what it was just sent. So what these
/// lines queue is allowed on top of that limit until the app acknowledges the `didFinishLaunching` that follows
/// them (it has read them all by then). The allowance is bounded by the state's limit, not by the app.
extension ProcessSupervisor {
    /// `.deliver` of `didFinishLaunching` with a restored state.
    ///
    /// - Parameters:
    ///   - state: The stored blob (UTF-8 text: it was received as JSON strings).
    ///   - restoration: How the run that preserved it ended (`RunEnding.rawValue`).
    package func deliverRestoring(token: MessageToken, to app: AppID, state: [UInt8], restoration: String) {
        guard let child = self.apps[app]?.child, !child.hasExited, child.isChannelOpen else {
            self.deliver(.didFinishLaunching, token: token, to: app)
            return
        }
        var allowance = 0
        let parts = Self.restoredParts(state)
        for (index, part) in parts.enumerated() {
            let line = AppProtocolCodec.encode(
                RunwayToApp.restoredState(state: String(decoding: part, as: UTF8.self), more: index < parts.count - 1)
            )
            allowance += line.count + 1
            self.apps[app]?.restorationAllowance = allowance
            child.send(line: line)
        }
        let message = AppProtocolCodec.encode(
            RunwayToApp.restoringLaunch(token: token.rawValue, restoration: restoration)
        )
        self.apps[app]?.restorationAllowance = allowance + message.count + 1
        child.messageInFlight = token
        child.send(line: message)
        self.apps[app]?.lastWrite = self.loop.turnNow
        self.logger.debug(
            "restored state delivered",
            metadata: [
                "app": "\(app)", "bytes": .stringConvertible(state.count), "parts": .stringConvertible(parts.count),
                "restoration": "\(restoration)",
            ]
        )
    }

    /// `state` cut into parts whose JSON-escaped text is at most `AppProtocol.restoredStatePartBytes` bytes, never
    /// inside a UTF-8 sequence; one empty part for an empty state. Counted escaped, so that a line of quotes,
    /// backslashes or control characters stays as far below `AppProtocol.maximumLineBytes` as one of plain text.
    static func restoredParts(_ state: [UInt8]) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var start = 0
        repeat {
            var end = start
            var escaped = 0
            while end < state.count {
                let cost = Self.escapedBytes(state[end])
                guard escaped + cost <= AppProtocol.restoredStatePartBytes else { break }
                escaped += cost
                end += 1
            }
            // Back off continuation bytes (10xxxxxx) so that the cut falls before a sequence's first byte.
            var cut = end
            while cut > start, cut < state.count, state[cut] & 0xC0 == 0x80 { cut -= 1 }
            if cut > start { end = cut }
            parts.append(state[start..<end])
            start = end
        } while start < state.count
        return parts
    }

    /// The bytes `byte` takes in a JSON string at most: six for a control character (`\u00XX`), two for a quote or
    /// a backslash, one otherwise (the encoder writes other bytes, and non-ASCII text, as they are).
    static func escapedBytes(_ byte: UInt8) -> Int {
        if byte < 0x20 { return 6 }
        return byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") ? 2 : 1
    }
}
