@_spi(Driver) import RunwayCore

// One verb for everything asked of an app: `perform(_:on:)` takes a `Command` (Behaviour.md section 2) or a
// `UserAction` (section 4), `perform(_:onEach:)` does the same for many apps in one hop, and `perform(_:)` takes a
// device-wide `DeviceEvent` (RunwayScheduler.swift). The earlier `send(_:to:)` and `send(_:toEach:)` forward here
// (RunwayScheduler+Deprecated.swift).

extension RunwayScheduler {
    /// Performs a command on one app (Behaviour.md section 2), for example `perform(.launch, on: app)`. Returns
    /// once the scheduler accepted it; the messages it causes are delivered afterwards, one at a time per app.
    /// The transition it causes carries `cause == .command(command)` and no `userAction`.
    ///
    /// Threading: any thread or task; hops to the loop thread and waits for its answer (inline on the loop thread).
    ///
    /// - Throws: `unknownApp`, `illegalCommand` (naming the app, its state and the command; nothing
    ///   changes), `stopping`.
    public func perform(_ command: Command, on app: AppID) throws(SchedulerError) {
        try self.bridge.syncThrowing(app: app) { driver throws(SchedulerError) in
            try driver.command(command, for: app)
        }
    }

    /// Performs a user action of section 4 on one app, for example `perform(.home, on: app)`: the command it
    /// stands for (`UserAction.command`), with the app's lock behaviour for `lock` and `unlock` (S7). The
    /// transitions it causes report the action in `TransitionEvent.userAction` beside the command in `cause`
    /// (`home` is `cause == .command(.enterBackground)`, `userAction == .home`).
    ///
    /// Threading: any thread or task; hops to the loop thread and waits for its answer (inline on the loop thread).
    ///
    /// - Throws: as `perform(_:on:)` with a command: `unknownApp`, `illegalCommand`, `stopping`.
    public func perform(_ action: UserAction, on app: AppID) throws(SchedulerError) {
        try self.bridge.syncThrowing(app: app) { driver throws(SchedulerError) in
            try driver.userAction(action, for: app)
        }
    }

    /// Performs one command on many apps in a single hop to the loop, for example `launch` on every configured
    /// app. Each app is handled on its own, in the order given, exactly as by `perform(_:on:)`: one refusal does
    /// not stop the others.
    ///
    /// - Returns: The refusals by app; empty when every app accepted the command (every app is refused with
    ///   `stopping` once the scheduler has stopped).
    @discardableResult
    public func perform(_ command: Command, onEach apps: [AppID]) -> [AppID: SchedulerError] {
        self.performOnEach(apps) { driver, app throws(SchedulerError) in try driver.command(command, for: app) }
    }

    /// Performs one user action on many apps in a single hop to the loop, each exactly as by `perform(_:on:)`
    /// with that action: one refusal does not stop the others.
    ///
    /// - Returns: The refusals by app; empty when every app accepted the action.
    @discardableResult
    public func perform(_ action: UserAction, onEach apps: [AppID]) -> [AppID: SchedulerError] {
        self.performOnEach(apps) { driver, app throws(SchedulerError) in try driver.userAction(action, for: app) }
    }

    private func performOnEach(
        _ apps: [AppID],
        _ body: @escaping @Sendable (LoopDriver, AppID) throws(SchedulerError) -> Void
    ) -> [AppID: SchedulerError] {
        let refusals: [AppID: SchedulerError]? = self.bridge.sync { driver in
            var refusals: [AppID: SchedulerError] = [:]
            for app in apps {
                do throws(SchedulerError) { try body(driver, app) } catch { refusals[app] = error }
            }
            return refusals
        }
        return refusals
            ?? Dictionary(
                apps.map { ($0, SchedulerError(.stopping, app: $0)) },
                uniquingKeysWith: { first, _ in first }
            )
    }
}
