/// An app's identity: its bundle identifier (`CFBundleIdentifier`), unique within one scheduler.
public struct AppID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public var bundleIdentifier: String

    public init(_ bundleIdentifier: String) {
        self.bundleIdentifier = bundleIdentifier
    }

    public init(stringLiteral value: String) {
        self.bundleIdentifier = value
    }

    public static func < (lhs: AppID, rhs: AppID) -> Bool { lhs.bundleIdentifier < rhs.bundleIdentifier }

    public var description: String { self.bundleIdentifier }
}

/// Identifies one background task for the scheduler's lifetime (B1).
///
/// Ids are issued in increasing order starting at 1, are never reused, and are never equal to `.invalid`.
/// Because ids increase, the order of ids is the order in which tasks began.
public struct BackgroundTaskID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Returned by `beginBackgroundTask` when no task may begin (UIKit's `.invalid`).
    public static let invalid = BackgroundTaskID(rawValue: 0)

    public static func < (lhs: BackgroundTaskID, rhs: BackgroundTaskID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { self == .invalid ? "task#invalid" : "task#\(self.rawValue)" }
}

/// Identifies one message delivery, so that a late acknowledgement of an abandoned message is recognised.
public struct MessageToken: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public static func < (lhs: MessageToken, rhs: MessageToken) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "msg#\(self.rawValue)" }
}
