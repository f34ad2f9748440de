// A transition as the control protocol carries it in event lines and history (Docs/ControlProtocol.md).

@_spi(Driver) import RunwayCore

/// One transition (L8).
package struct TransitionPayload: Codable, Hashable, Sendable {
    package var app: String
    package var from: String
    package var to: String
    /// `command(enterBackground)`, `noOutstandingTasks`, `budgetExpired` or `terminated(<reason>)`.
    package var cause: String
    /// The termination reason when `to` is `notRunning`.
    package var reason: String?
    /// Seconds since the daemon started (its monotonic clock).
    package var atSeconds: Double
    package var messages: [String]
    package var exit: String?
    /// The wall-clock time of the transition: ISO 8601, UTC, milliseconds.
    package var wallTime: String?
    /// On a transition to notRunning that armed a KeepAlive restart: its number, its instant (seconds since the
    /// daemon started) and whether the app is crash-looping.
    package var restart: Int?
    package var restartAtSeconds: Double?
    package var crashLooping: Bool?
    /// The user action that was asked (`home`, `lock`, ...) when the transition is its doing; absent otherwise.
    /// `cause` still names the command it stood for (`command(enterBackground)` for `home`).
    package var userAction: String?
    /// R2: on a launch that restores, how the run that preserved its state ended; on a transition to notRunning,
    /// how the run ended (`runEnding`) and, with a stored state, whether it was kept (`preservedStateKept`).
    package var restoration: String?
    package var runEnding: String?
    package var preservedStateKept: Bool?

    package init(_ event: TransitionEvent) {
        self.app = event.app.bundleIdentifier
        self.from = event.from.rawValue
        self.to = event.to.rawValue
        self.cause = event.cause.description
        if case .terminated(let reason) = event.cause { self.reason = reason.description }
        self.atSeconds = Double(event.at.nanosecondsSinceOrigin) / 1_000_000_000
        self.messages = event.messages.map(\.description)
        self.exit = event.exit?.description
        self.restart = event.restart?.attempt
        self.restartAtSeconds = event.restart.map { Double($0.at.nanosecondsSinceOrigin) / 1_000_000_000 }
        self.crashLooping = event.restart?.crashLooping
        self.userAction = event.userAction?.rawValue
        (self.restoration, self.runEnding) = (event.restoration?.rawValue, event.runEnding?.rawValue)
        self.preservedStateKept = event.preservedStateKept
    }
}
