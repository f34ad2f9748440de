@_spi(Driver) import RunwayCore

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
    /// The app was launched (`launch` or `launchInBackground`): the first message of every run. Followed by
    /// `didBecomeActive` (launched in the foreground) or `didEnterBackground` (launched in the background).
    func didFinishLaunching(_ application: RunwayApplication) async
    /// The app is leaving the active state (`resignActive`, the first half of Home, a lock, an alert, the app
    /// switcher). It keeps running; it should pause what needs the user's attention.
    func willResignActive(_ application: RunwayApplication) async
    /// The app is active: in the foreground and receiving user events. After launch, after an interruption ends
    /// (unlock, an alert ignored) and after `willEnterForeground`.
    func didBecomeActive(_ application: RunwayApplication) async
    /// The app is in the background (Home, `enterBackground`, a modern lock). Begin a background task before
    /// returning to keep running (B1); an app that returns with no task is suspended at once (B5). Must return
    /// within `BackgroundEntryGrace` (L3), measured from when the call starts, or the app is terminated.
    func didEnterBackground(_ application: RunwayApplication) async
    /// The app is returning to the foreground from the background or from suspension; `didBecomeActive`
    /// follows (with held notifications in between, N1). Its executor's held work has been released.
    func willEnterForeground(_ application: RunwayApplication) async
    /// The app is being terminated (a `terminate` command, an accepted shutdown, the scheduler's shutdown, an
    /// exits-on-suspend app leaving the foreground). Must return within `TerminationGrace` (L4); its executor's
    /// running work is cancelled once the app is gone.
    func willTerminate(_ application: RunwayApplication) async
    /// Memory is short (P3): free what can be rebuilt. Sent to running apps, at most one pending per app;
    /// suspended apps are not woken for it and are the first to be purged.
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

// Empty defaults, so that a delegate implements only the methods it needs.
extension RunwayAppDelegate {
    /// Does nothing: the app needs no set-up.
    public func didFinishLaunching(_ application: RunwayApplication) async {}
    /// Does nothing.
    public func willResignActive(_ application: RunwayApplication) async {}
    /// Does nothing.
    public func didBecomeActive(_ application: RunwayApplication) async {}
    /// Does nothing, so the app begins no task and is suspended as soon as this returns (B5).
    public func didEnterBackground(_ application: RunwayApplication) async {}
    /// Does nothing.
    public func willEnterForeground(_ application: RunwayApplication) async {}
    /// Does nothing: the app is gone when this returns.
    public func willTerminate(_ application: RunwayApplication) async {}
    /// Does nothing.
    public func didReceiveMemoryWarning(_ application: RunwayApplication) async {}
    /// Does nothing: the notification is dropped.
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
