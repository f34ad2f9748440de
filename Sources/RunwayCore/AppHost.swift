/// Where an `ActionRunner` sends the actions for one kind of app: the embedded objects of a host process, the
/// child processes of the daemon, or the scripted apps of a simulation. One implementation per kind; the runner
/// picks it by the app's `AppKind`, so nothing else tests what kind an app is.
///
/// Threading: every method is called on the runner's thread (the loop thread), in action order, while the
/// runner drains its queue. A host may feed the runner new events from inside a call (an immediate return);
/// the runner queues their actions behind the current ones.
@_spi(Driver)
public protocol AppHost: AnyObject {
    /// `.deliver`: give `message` to the app. Apps that await messages report the return with
    /// `ActionRunner.run { $0.messageReturned(token, from: app, now: $1) }`; nothing else reaches the app until
    /// then (L2).
    func deliver(_ message: Message, token: MessageToken, to app: AppID)
    /// `.spawn`: start the process app's program; report a failure with `spawnFailed`.
    func spawn(_ app: AppID)
    /// `.suspend`: freeze the app (P1) or hold an embedded app's work (A2).
    func suspend(_ app: AppID)
    /// `.resume`: thaw it, release held work.
    func resume(_ app: AppID)
    /// `.stop`: an embedded app is gone; cancel its held work.
    func stop(_ app: AppID)
    /// `.sendTerminateSignal`: SIGTERM to a running process app (L4).
    func sendTerminateSignal(_ app: AppID)
    /// `.kill`: SIGKILL without thawing (P2); report the exit with `processExited`.
    func kill(_ app: AppID)
    /// `.setOOMScoreAdjust`: the process app's `oom_score_adj` for its new state (P3).
    func setOOMScoreAdjust(_ value: Int, for app: AppID)
    /// `.publish` of a launch that restores (R2), before `transitioned`: read the stored state for the launch.
    /// Returns false when none could be read (a torn or changed file): the launch then restores nothing.
    func restoringLaunch(_ app: AppID, from ending: RunEnding) -> Bool
    /// `.publish`: the app changed state; called before the runner's `onTransition`.
    func transitioned(_ event: TransitionEvent)
}

extension AppHost {
    /// Does nothing: a host whose apps have no `oom_score_adj` (embedded apps, a simulation) ignores it.
    public func setOOMScoreAdjust(_ value: Int, for app: AppID) {}
    /// True: a host that keeps no states has nothing to read.
    public func restoringLaunch(_ app: AppID, from ending: RunEnding) -> Bool { true }
    /// Does nothing: a host that keeps no per-state bookkeeping ignores transitions.
    public func transitioned(_ event: TransitionEvent) {}
}
