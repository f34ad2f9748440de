/// A lifecycle callback to an app, named as in UIKit (Behaviour.md section 1).
public enum Message: Hashable, Sendable, CustomStringConvertible {
    /// The app was launched; the first message of every run.
    case didFinishLaunching
    /// The app is leaving the active state.
    case willResignActive
    /// The app is active.
    case didBecomeActive
    /// The app is in the background; it has `BackgroundEntryGrace` to return (L3).
    case didEnterBackground
    /// The app is returning to the foreground.
    case willEnterForeground
    /// The app is being terminated; it has `TerminationGrace` to return (L4).
    case willTerminate
    /// Calls the expiration handler of one background task (B4).
    case backgroundTaskWillExpire(BackgroundTaskID)
    /// Memory is short (P3).
    case didReceiveMemoryWarning
    /// A host notification (N1). `payload` is opaque to the scheduler.
    case notification(name: String, payload: String)
    /// A background wake-up (W1): the app is to do its work and call completion with `token` (W4). `payload` is
    /// opaque to the scheduler (a remote notification's JSON; empty for fetch and refresh).
    case backgroundWake(reason: WakeReason, payload: String, token: WakeToken)

    /// The message's name as in UIKit, with the task for `backgroundTaskWillExpire` and the name (not the payload)
    /// for a notification.
    public var description: String {
        switch self {
        case .didFinishLaunching: return "didFinishLaunching"
        case .willResignActive: return "willResignActive"
        case .didBecomeActive: return "didBecomeActive"
        case .didEnterBackground: return "didEnterBackground"
        case .willEnterForeground: return "willEnterForeground"
        case .willTerminate: return "willTerminate"
        case .backgroundTaskWillExpire(let id): return "backgroundTaskWillExpire(\(id))"
        case .didReceiveMemoryWarning: return "didReceiveMemoryWarning"
        case .notification(let name, _): return "notification(\(name))"
        case .backgroundWake(let reason, _, let token): return "backgroundWake(\(reason), \(token))"
        }
    }
}
