@_spi(Driver) import RunwayCore
import RunwayLoop

/// The `AppHost` of embedded apps: runs their delegate methods on the cooperative pool and holds, releases or
/// cancels their executors (Behaviour.md A1, A2). Loop thread only, like the `ActionRunner` that calls it.
final class EmbeddedAppHost: AppHost {
    struct App {
        var delegate: any RunwayAppDelegate
        var application: RunwayApplication
    }

    private let loop: EventLoopThread
    /// Where a launch that restores finds its state (R2); set once by the driver.
    var restoration: StateRestoration?
    /// Reports a delegate method's return; called on the loop thread. Set once by the driver before any app
    /// registers.
    var returned: @Sendable (MessageToken, AppID) -> Void = { _, _ in }
    private var apps: [AppID: App] = [:]
    /// A2: apps resumed whose resume transition has not been published yet (`resume` comes before its `publish`).
    private var resuming: Set<AppID> = []
    /// A2: per resumed app, the last message of its resume; its work held while suspended is released when that
    /// message has returned.
    private var releaseAfter: [AppID: Message] = [:]
    /// A2: the delivery of that message, once sent; `messageHandled` releases the work when it returns.
    private var releasing: [AppID: MessageToken] = [:]

    init(loop: EventLoopThread) {
        self.loop = loop
    }

    func add(_ app: AppID, delegate: any RunwayAppDelegate, application: RunwayApplication) {
        self.apps[app] = App(delegate: delegate, application: application)
    }

    /// Drops every app (and so the delegates, which may refer back to the scheduler).
    func removeAll() {
        self.apps = [:]
    }

    private func app(_ id: AppID, for action: StaticString) -> App {
        guard let app = self.apps[id] else { preconditionFailure("\(action) for unregistered app \(id)") }
        return app
    }

    func deliver(_ message: Message, token: MessageToken, to app: AppID) {
        if case .backgroundTaskWillExpire = message {
            // A task begun without a handler: nothing to call; the message returns at once (queued behind the
            // current actions by the runner).
            self.returned(token, app)
            return
        }
        let entry = self.app(app, for: "deliver")
        let (loop, returned) = (self.loop, self.returned)
        // A2: the resume's last message releases the held work once the app has handled it (`messageHandled`).
        if self.releaseAfter[app] == message {
            self.releaseAfter[app] = nil
            self.releasing[app] = token
        }
        Task {
            await entry.delegate.deliver(message, to: entry.application)
            // Refused only when the loop is stopping: the app is being torn down anyway.
            _ = loop.execute { returned(token, app) }
        }
    }

    /// A2: a delivered message returned (on the loop thread, before the scheduler hears of it): the return of a
    /// resume's last message releases the work held while the app was suspended.
    func messageHandled(_ token: MessageToken, from app: AppID) {
        guard self.releasing[app] == token else { return }
        self.releasing[app] = nil
        self.apps[app]?.application.executor.resumed()
    }

    func suspend(_ app: AppID) {
        // A resume whose messages did not all run keeps its work held for the next one.
        self.releaseAfter[app] = nil
        self.releasing[app] = nil
        self.resuming.remove(app)
        self.app(app, for: "suspend").application.executor.suspended()
    }

    /// A2: the work held while suspended is not released here but after the resume's last message (`transitioned`).
    func resume(_ app: AppID) { self.resuming.insert(app) }

    func stop(_ app: AppID) {
        // Each removal hashes the app's id: skipped where there is nothing to remove (the usual case).
        if !self.releaseAfter.isEmpty { self.releaseAfter[app] = nil }
        if !self.releasing.isEmpty { self.releasing[app] = nil }
        if !self.resuming.isEmpty { self.resuming.remove(app) }
        self.apps[app]?.application.executor.terminated()
    }

    func restoringLaunch(_ app: AppID, from ending: RunEnding) -> Bool {
        self.restoration?.restoringLaunch(app, from: ending) ?? false
    }

    func transitioned(_ event: TransitionEvent) {
        if let restoration = self.restoration {
            restoration.transitioned(event)
            if event.from == .notRunning, let application = self.apps[event.app]?.application {
                // R2: readable inside didFinishLaunching, which follows this transition.
                let restored = restoration.launching.removeValue(forKey: event.app)
                application.restored.withLock { $0 = restored.map { (state: $1, lastRunEnded: $0) } }
            }
        }
        if event.from == .notRunning { self.apps[event.app]?.application.executor.launched() }
        if event.from == .suspended, self.resuming.remove(event.app) != nil {
            // A2: held work runs after the last message of the resume: didBecomeActive on a summon,
            // willEnterForeground when the app comes back inactive (L10), backgroundWake on a wake-up (W1).
            if let last = event.messages.last {
                self.releaseAfter[event.app] = last
            } else {
                self.apps[event.app]?.application.executor.resumed()
            }
        }
    }

    func spawn(_ app: AppID) { preconditionFailure("spawn for embedded app \(app)") }

    func sendTerminateSignal(_ app: AppID) { preconditionFailure("sendTerminateSignal for embedded app \(app)") }

    func kill(_ app: AppID) { preconditionFailure("kill for embedded app \(app)") }
}
