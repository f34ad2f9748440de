/// The lifecycle states of Behaviour.md section 2, named as in UIKit.
public enum AppState: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Not launched, or gone: no process, no delegate calls, no tasks.
    case notRunning
    /// In the foreground but not receiving events: during launch, a lock (classic), an alert, the app switcher.
    case inactive
    /// In the foreground and receiving events.
    case active
    /// Running in the background: on a budget with background tasks (B3), or without one with background
    /// modes (L7).
    case background
    /// In memory but not running: a process app is frozen or stopped, an embedded app's executor holds its work
    /// (P1, A2). Resumed only by the foreground; purged first under memory pressure (P3).
    case suspended

    /// The state's name (`notRunning`, `background`, ...), as in logs, status and event lines.
    public var description: String { self.rawValue }

    /// True in `active` and `inactive`: background tasks cost nothing there (B2) and
    /// `backgroundTimeRemaining` is infinite (B3).
    public var isForeground: Bool { self == .active || self == .inactive }
}
