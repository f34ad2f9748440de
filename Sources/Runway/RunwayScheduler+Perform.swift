@_spi(Driver) import RunwayCore

// One verb for everything asked of an app: `perform(_:on:)` takes a `Command` (Behaviour.md section 2) or a
// `UserAction` (section 4), `perform(_:onEach:)` does the same for many apps in one hop, `perform(_:sliceLimit:)`
// takes each app's own command in bounded slices (a burst of launches), and `perform(_:)` takes a device-wide
// `DeviceEvent` (RunwayScheduler.swift). The earlier `send(_:to:)` and `send(_:toEach:)` forward here
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
        self.performOnEach(apps, app: \.self) { driver, app throws(SchedulerError) in
            try driver.command(command, for: app)
        }
    }

    /// Performs one user action on many apps in a single hop to the loop, each exactly as by `perform(_:on:)`
    /// with that action: one refusal does not stop the others.
    ///
    /// - Returns: The refusals by app; empty when every app accepted the action.
    @discardableResult
    public func perform(_ action: UserAction, onEach apps: [AppID]) -> [AppID: SchedulerError] {
        self.performOnEach(apps, app: \.self) { driver, app throws(SchedulerError) in
            try driver.userAction(action, for: app)
        }
    }

    /// The most commands `perform(_:sliceLimit:)` runs in one hop to the loop: a launch costs the loop about
    /// 0.5 ms (the spawn), so a slice delays a due deadline by about 8 ms at most, and 1,000 launches take 63 hops.
    package static let commandSliceLimit = 16

    /// Performs each app's own command (a burst of launches: `RunAtLoad`, a reload adding apps), in the order
    /// given, at most `sliceLimit` per hop to the loop. Each slice runs in one loop turn, so the per-turn work of
    /// the process supervisor (the environment read, the state file's write) is paid once per slice, not once per
    /// app; between two slices the loop runs its due deadlines and I/O, which a burst never holds up by more than
    /// one slice. Each app is handled on its own, exactly as by `perform(_:on:)`: one refusal does not stop the
    /// others.
    ///
    /// Threading: any thread or task except the loop thread's own work (there it runs every slice inline).
    ///
    /// - Returns: The refusals by app; empty when every app accepted its command.
    @discardableResult
    package func perform(
        _ commands: [(app: AppID, command: Command)],
        sliceLimit: Int = RunwayScheduler.commandSliceLimit
    ) -> [AppID: SchedulerError] {
        precondition(sliceLimit >= 1, "sliceLimit must be at least 1, not \(sliceLimit)")
        var refusals: [AppID: SchedulerError] = [:]
        for start in stride(from: 0, to: commands.count, by: sliceLimit) {
            let slice = Array(commands[start..<min(start + sliceLimit, commands.count)])
            let sliceRefusals = self.performOnEach(slice, app: \.app) { driver, entry throws(SchedulerError) in
                try driver.command(entry.command, for: entry.app)
            }
            refusals.merge(sliceRefusals) { first, _ in first }
        }
        return refusals
    }

    /// Runs `body` for each of `items` in one hop to the loop, each on its own: the refusals by app (`app` names an
    /// item's app), or `stopping` for every item when the scheduler has stopped.
    private func performOnEach<Item: Sendable>(
        _ items: [Item],
        app: @escaping @Sendable (Item) -> AppID,
        _ body: @escaping @Sendable (LoopDriver, Item) throws(SchedulerError) -> Void
    ) -> [AppID: SchedulerError] {
        let refusals: [AppID: SchedulerError]? = self.bridge.sync { driver in
            var refusals: [AppID: SchedulerError] = [:]
            for item in items {
                do throws(SchedulerError) { try body(driver, item) } catch { refusals[app(item)] = error }
            }
            return refusals
        }
        return refusals
            ?? Dictionary(
                items.map { (app($0), SchedulerError(.stopping, app: app($0))) },
                uniquingKeysWith: { first, _ in first }
            )
    }
}
