/// A user event of section 4 that happens to the device rather than to one app (S7, S8, S10): it reaches every
/// app in the foreground, as on a phone. Each event closes or opens an interruption: `lock`, `offerShutdown` and
/// `alert` open one; `unlock`, `cancelShutdown`/`acceptShutdown` and `alertIgnored`/`alertAnswered` close it again
/// for the apps it interrupted.
public enum DeviceEvent: String, Hashable, Sendable, CaseIterable {
    case lock
    case unlock
    case offerShutdown
    case cancelShutdown
    case acceptShutdown
    case alert
    case alertIgnored
    case alertAnswered

    /// The same event for one app.
    public var userAction: UserAction {
        switch self {
        case .lock: return .lock
        case .unlock: return .unlock
        case .offerShutdown: return .offerShutdown
        case .cancelShutdown: return .cancelShutdown
        case .acceptShutdown: return .acceptShutdown
        case .alert: return .alert
        case .alertIgnored: return .alertIgnored
        case .alertAnswered: return .alertAnswered
        }
    }

    /// The event that opened the interruption this one closes; nil for an event that opens one.
    public var closes: DeviceEvent? {
        switch self {
        case .lock, .offerShutdown, .alert: return nil
        case .unlock: return .lock
        case .cancelShutdown, .acceptShutdown: return .offerShutdown
        case .alertIgnored, .alertAnswered: return .alert
        }
    }
}
