/// How often the supervisor read the whole list of this process's children: each read costs in
/// proportion to the number of children, so doing it per app or per exit made a batch of N apps cost O(N²).
/// Tests read these to check that a batch reads the list once. Loop thread only.
struct ProcessScanCounts: Hashable, Sendable {
    /// Looks at this process's own children for attribution (`attributeOwnChildren`).
    var ownChildrenLooks = 0
    /// Of those looks, the ones that gathered the pids every app tracks (a read of every app): only a look that finds
    /// a child that is no app's main process needs them.
    var trackedPIDGathers = 0
    /// Full zombie sweeps (`sweepZombies`).
    var zombieSweeps = 0
    /// Looks for an exited child to reap (`sweepZombiesIfAny`: a `waitid(P_ALL, WNOWAIT)`, which walks this process's
    /// children up to the first exited one): at most one per loop turn, whatever the exits and SIGCHLDs in it.
    var zombieLooks = 0
    /// The most of those looks made in one loop turn.
    var zombieLooksInOneTurnMost = 0
    /// `oom_score_adj` writes (`flushOOMScores`).
    var oomScoreWrites = 0
    /// Looks at the kernel for a pending suspension or resumption (`checkConfirmation`).
    var confirmationChecks = 0
    /// Reads of a child's `/proc/PID/environ` for its `RUNWAY_APP` (`attributeOwnChildren`): one per process.
    var childEnvironmentReads = 0
    /// Reads of this process's environment for a launch (`environmentBase`).
    var environmentReads = 0
    /// Looks for a launch's program in the file system (`executable(_:now:)`): one per program per loop turn.
    var programLookups = 0
    /// Reads of `RLIMIT_NOFILE` for a launch's descriptor budget (`descriptorLimit(now:)`): one per loop turn.
    var descriptorLimitReads = 0
    /// Resumptions of an app's main process seen through the kernel's wait on its pidfd instead of `/proc`.
    var continuedByWait = 0
    /// Stat readings of an app's main process made from the kernel's wait on its pidfd and the link count of its
    /// task folder instead of `/proc/PID/stat`.
    var mainStatsByWait = 0
    /// SIGCHLDs handled by the zombie sweep's watcher (exits only, no stops or continues).
    var childSignals = 0
    /// Apps looked at to decide whether the settling looks run (`settlingActivity`, `scanFired`).
    var periodicScanLooks = 0
    /// The most children of this process one look at them listed (`attributeOwnChildren`): the children the loop
    /// thread did not start (the apps' main processes are left out), so it does not grow with the apps running.
    var ownChildrenListedMost = 0
    /// Apps the housekeeping tick looked at for a drain or a pending confirmation (`tickFired`): those waiting for
    /// one only, not every app.
    var tickAppLooks = 0
    /// Main processes whose identity (start time) the boot clock around their spawn gave, with no read of
    /// `/proc/PID/stat` (`BootClockStartTime`); the others' is read on the next tick (`identityReads`).
    var identitiesFromClock = 0
    /// Main processes whose identity was read from `/proc/PID/stat` on the tick after their launch.
    var identityReads = 0
    /// Apps whose processes outside the main process's group were looked for on the turn after their SIGTERM
    /// (`terminateTheRest`): none for an app whose main process exited first.
    var terminationRestLooks = 0
    /// The most children spawned in one loop turn (`spawnCounted`): a burst of launches is sliced so that this
    /// stays at most `RunwayScheduler.commandSliceLimit`, whatever the burst.
    var spawnsInOneTurnMost = 0
}
