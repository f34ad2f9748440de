import RunwayCore

// The names `RunwayScheduler` had before one verb covered commands and user actions (Decisions: "one verb family").
// Each forwards to its `perform` form unchanged; they stay for source compatibility and may go in a later major
// version.

extension RunwayScheduler {
    /// Performs a command on one app: `perform(_:on:)` under its earlier name.
    ///
    /// - Throws: `unknownApp`, `illegalCommand`, `stopping`, as `perform(_:on:)`.
    @available(*, deprecated, renamed: "perform(_:on:)")
    public func send(_ command: Command, to app: AppID) throws(SchedulerError) {
        try self.perform(command, on: app)
    }

    /// Performs one command on many apps in one hop: `perform(_:onEach:)` under its earlier name.
    ///
    /// - Returns: The refusals by app; empty when every app accepted the command.
    @available(*, deprecated, renamed: "perform(_:onEach:)")
    @discardableResult
    public func send(_ command: Command, toEach apps: [AppID]) -> [AppID: SchedulerError] {
        self.perform(command, onEach: apps)
    }
}
