/// Why an app is woken in the background (Behaviour.md W1–W9). The raw values are the words of the CLI, the control
/// protocol and the app protocol.
public enum WakeReason: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// A background fetch (`performFetchWithCompletionHandler`): only for an app that is not in the foreground.
    case fetch
    /// A silent remote notification (`didReceiveRemoteNotification:fetchCompletionHandler:`); an app in the
    /// foreground receives it without a budget change.
    case remoteNotification = "remote-notification"
    /// A scheduled refresh the app asked for (`BGAppRefreshTask`), run no earlier than the instant it named.
    case refresh

    /// The raw value: `fetch`, `remote-notification` or `refresh`.
    public var description: String { self.rawValue }
}

/// Identifies one background wake-up, so that the app's completion call names the wake-up it ends (W4).
///
/// Tokens are issued in increasing order from 1 for the scheduler's lifetime and never reused; 0 is never issued.
public struct WakeToken: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The token's number, as the protocols carry it (`wake` fields).
    public var rawValue: UInt64

    /// The token with this number; the scheduler issues them, other code only rebuilds one it was given.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Issue order: a smaller token was issued earlier.
    public static func < (lhs: WakeToken, rhs: WakeToken) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `wake#N`, as in the timeline and test output.
    public var description: String { "wake#\(self.rawValue)" }
}

/// An app's pending refresh request (W7): when it is due and the timer that fires then. At most one per app; it
/// outlives the app's runs (a not-running app is launched into the background for it), as BGTaskScheduler's do.
struct RefreshRequest {
    /// The instant the refresh is due: the app's earliest begin date, or the request's instant if that was
    /// earlier.
    var due: Instant
    var timer: DeadlineHandle
}
