/// An app's identity: its bundle identifier (`CFBundleIdentifier`), unique within one scheduler.
public struct AppID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The reverse-DNS identifier, such as `com.example.mail`.
    public var bundleIdentifier: String

    /// The app with this bundle identifier. Not validated here; the config loader checks identifiers it reads.
    public init(_ bundleIdentifier: String) {
        self.bundleIdentifier = bundleIdentifier
    }

    /// The app with this bundle identifier, written as a literal: `let mail: AppID = "com.example.mail"`.
    public init(stringLiteral value: String) {
        self.bundleIdentifier = value
    }

    /// Orders by bundle identifier.
    public static func < (lhs: AppID, rhs: AppID) -> Bool { lhs.bundleIdentifier < rhs.bundleIdentifier }

    /// The bundle identifier.
    public var description: String { self.bundleIdentifier }
}

/// Identifies one background task for the scheduler's lifetime (B1).
///
/// Ids are issued in increasing order starting at 1, are never reused, and are never equal to `.invalid`.
/// Because ids increase, the order of ids is the order in which tasks began.
public struct BackgroundTaskID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number: 0 for `.invalid`, else 1, 2, ... in begin order.
    public var rawValue: UInt64

    /// The id with this number, for ids that crossed a boundary as numbers (the app protocol, the control
    /// socket). An id the scheduler never issued is refused with `unknownTask` when ended.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Returned by `beginBackgroundTask` when no task may begin (UIKit's `.invalid`).
    public static let invalid = BackgroundTaskID(rawValue: 0)

    /// Orders by number, which is the order in which the tasks began.
    public static func < (lhs: BackgroundTaskID, rhs: BackgroundTaskID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `task#<number>`, or `task#invalid`.
    public var description: String { self == .invalid ? "task#invalid" : "task#\(self.rawValue)" }
}

/// Identifies one message delivery, so that a late acknowledgement of an abandoned message is recognised.
@_spi(Driver)
public struct MessageToken: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number: 1, 2, ... in the order the scheduler sent the deliveries, never reused.
    public var rawValue: UInt64

    /// The token with this number, for tokens that crossed a boundary as numbers (the app protocol's `ack`).
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Orders by number, which is the order in which the deliveries were sent.
    public static func < (lhs: MessageToken, rhs: MessageToken) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `msg#<number>`.
    public var description: String { "msg#\(self.rawValue)" }
}
