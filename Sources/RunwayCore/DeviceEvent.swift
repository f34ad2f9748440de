/// A user event of section 4 that happens to the device rather than to one app (S7, S8, S10): it reaches every
/// app in the foreground, as on a phone. Each event closes or opens an interruption: `lock`, `offerShutdown` and
/// `alert` open one; `unlock`, `cancelShutdown`/`acceptShutdown` and `alertIgnored`/`alertAnswered` close it again
/// for the apps it interrupted.
public enum DeviceEvent: String, Hashable, Sendable, CaseIterable {
    /// S7: the device is locked; opens an interruption of every foreground app (by the lock behaviour).
    case lock
    /// S7: the device is unlocked; closes `lock` for the apps it reached.
    case unlock
    /// S8: the power button is held and the shutdown offer shows; opens an interruption.
    case offerShutdown
    /// S8: the offer is cancelled; closes `offerShutdown`, the apps become active again.
    case cancelShutdown
    /// S9: the offer is accepted; closes `offerShutdown` by terminating the apps it reached.
    case acceptShutdown
    /// S10: an alert (a call, an SMS) appears; opens an interruption.
    case alert
    /// S10: the alert is ignored; closes `alert`, the apps become active again.
    case alertIgnored
    /// S10: the alert is answered; closes `alert` by sending the apps it reached to the background.
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
