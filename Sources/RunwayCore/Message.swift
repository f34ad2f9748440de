/// A lifecycle callback to an app, named as in UIKit (Behaviour.md section 1).
public enum Message: Hashable, Sendable, CustomStringConvertible {
    case didFinishLaunching
    case willResignActive
    case didBecomeActive
    case didEnterBackground
    case willEnterForeground
    case willTerminate
    /// Calls the expiration handler of one background task (B4).
    case backgroundTaskWillExpire(BackgroundTaskID)
    case didReceiveMemoryWarning
    /// A host notification (N1). `payload` is opaque to the scheduler.
    case notification(name: String, payload: String)
    /// A background wake-up (W1): the app is to do its work and call completion with `token` (W4). `payload` is
    /// opaque to the scheduler (a remote notification's JSON; empty for fetch and refresh).
    case backgroundWake(reason: WakeReason, payload: String, token: WakeToken)

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
