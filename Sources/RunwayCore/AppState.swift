/// The lifecycle states of Behaviour.md section 2, named as in UIKit.
public enum AppState: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case notRunning
    case inactive
    case active
    case background
    case suspended

    public var description: String { self.rawValue }

    /// True in `active` and `inactive`: background tasks cost nothing there (B2) and
    /// `backgroundTimeRemaining` is infinite (B3).
    public var isForeground: Bool { self == .active || self == .inactive }
}
