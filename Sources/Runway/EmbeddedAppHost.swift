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
    /// Reports a delegate method's return; called on the loop thread. Set once by the driver before any app
    /// registers.
    var returned: @Sendable (MessageToken, AppID) -> Void = { _, _ in }
    private var apps: [AppID: App] = [:]

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
        Task {
            await entry.delegate.deliver(message, to: entry.application)
            // Refused only when the loop is stopping: the app is being torn down anyway.
            _ = loop.execute { returned(token, app) }
        }
    }

    func suspend(_ app: AppID) { self.app(app, for: "suspend").application.executor.suspended() }

    func resume(_ app: AppID) { self.app(app, for: "resume").application.executor.resumed() }

    func stop(_ app: AppID) { self.apps[app]?.application.executor.terminated() }

    func transitioned(_ event: TransitionEvent) {
        if event.from == .notRunning { self.apps[event.app]?.application.executor.launched() }
    }

    func spawn(_ app: AppID) { preconditionFailure("spawn for embedded app \(app)") }

    func sendTerminateSignal(_ app: AppID) { preconditionFailure("sendTerminateSignal for embedded app \(app)") }

    func kill(_ app: AppID) { preconditionFailure("kill for embedded app \(app)") }
}
