/// Counts over every app that the scheduler keeps up to date as it goes, so that a fleet summary reads them in
/// O(1) instead of visiting each app. Pure value; any thread.
@_spi(Driver)
public struct SchedulerTally: Hashable, Sendable {
    /// Registered apps.
    public var apps: Int
    /// Outstanding background tasks over every app.
    public var outstandingTasks: Int
    /// Apps whose `RestartStatus.crashLooping` is true.
    public var crashLooping: Int

    /// A tally with these counts (the core makes them; tests compare with them).
    public init(apps: Int, outstandingTasks: Int, crashLooping: Int) {
        self.apps = apps
        self.outstandingTasks = outstandingTasks
        self.crashLooping = crashLooping
    }
}

extension Scheduler {
    /// The counts of `SchedulerTally`, as of the last input. O(1): each is kept as it changes. Does not change
    /// anything.
    public var tally: SchedulerTally {
        SchedulerTally(
            apps: self.apps.count,
            outstandingTasks: self.taskTable.count,
            crashLooping: self.crashLoopingApps
        )
    }
}
