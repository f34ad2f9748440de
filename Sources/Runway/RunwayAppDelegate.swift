import RunwayCore

/// The lifecycle callbacks of an embedded app, named as in UIKit (Behaviour.md A1).
///
/// Threading: each method is called on a task of the global concurrent executor (or on the delegate's own
/// actor, if it is one), never on the scheduler's loop thread. Calls to one app are strictly sequential: a
/// method is not called before the previous one for the same app has returned (L2). Methods of different apps
/// run concurrently.
///
/// Time: `didEnterBackground` must return within `BackgroundEntryGrace` (L3) and `willTerminate` within
/// `TerminationGrace` (L4); the scheduler measures each call from when it starts it. A call that is still
/// running when its grace ends is abandoned (its return is ignored) and the app is terminated.
///
/// Every method has an empty default implementation.
public protocol RunwayAppDelegate: AnyObject, Sendable {
    func didFinishLaunching(_ application: RunwayApplication) async
    func willResignActive(_ application: RunwayApplication) async
    func didBecomeActive(_ application: RunwayApplication) async
    func didEnterBackground(_ application: RunwayApplication) async
    func willEnterForeground(_ application: RunwayApplication) async
    func willTerminate(_ application: RunwayApplication) async
    func didReceiveMemoryWarning(_ application: RunwayApplication) async
    /// A host notification (N1). Notifications posted while the app was suspended arrive after
    /// `willEnterForeground` and before `didBecomeActive`, coalesced by name.
    func didReceive(notification name: String, payload: String, _ application: RunwayApplication) async
    /// A background wake-up (W1): do the work, then call `application.completeBackgroundWake(token)`, from this
    /// method or later (W4). The app is suspended again once it completes or when the wake budget runs out. The
    /// default implementation completes at once, so an app that does not handle wake-ups is suspended again at once.
    func didReceiveBackgroundWake(
        reason: WakeReason,
        payload: String,
        token: WakeToken,
        _ application: RunwayApplication
    ) async
}

extension RunwayAppDelegate {
    public func didFinishLaunching(_ application: RunwayApplication) async {}
    public func willResignActive(_ application: RunwayApplication) async {}
    public func didBecomeActive(_ application: RunwayApplication) async {}
    public func didEnterBackground(_ application: RunwayApplication) async {}
    public func willEnterForeground(_ application: RunwayApplication) async {}
    public func willTerminate(_ application: RunwayApplication) async {}
    public func didReceiveMemoryWarning(_ application: RunwayApplication) async {}
    public func didReceive(notification name: String, payload: String, _ application: RunwayApplication) async {}
    public func didReceiveBackgroundWake(
        reason: WakeReason,
        payload: String,
        token: WakeToken,
        _ application: RunwayApplication
    ) async {
        // Refused only for a token never issued, or after shutdown: nothing is left to complete then.
        try? application.completeBackgroundWake(token)
    }
}

extension RunwayAppDelegate {
    /// Calls the method that `message` names. Expiration handlers are not delegate methods.
    func deliver(_ message: Message, to application: RunwayApplication) async {
        switch message {
        case .didFinishLaunching: await self.didFinishLaunching(application)
        case .willResignActive: await self.willResignActive(application)
        case .didBecomeActive: await self.didBecomeActive(application)
        case .didEnterBackground: await self.didEnterBackground(application)
        case .willEnterForeground: await self.willEnterForeground(application)
        case .willTerminate: await self.willTerminate(application)
        case .didReceiveMemoryWarning: await self.didReceiveMemoryWarning(application)
        case .notification(let name, let payload):
            await self.didReceive(notification: name, payload: payload, application)
        case .backgroundWake(let reason, let payload, let token):
            await self.didReceiveBackgroundWake(reason: reason, payload: payload, token: token, application)
        case .backgroundTaskWillExpire:
            preconditionFailure("Expiration handlers are called by the driver, not through the delegate")
        }
    }
}
