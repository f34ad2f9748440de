import RunwayCore

extension RunwayScheduler {
    /// The scheduler's loop, for measurement tools of this package (`runway bench`): its clock (`now()`, the
    /// clock of `TransitionEvent.at`), `execute` to run a probe on the loop thread, and `idleTime()`.
    ///
    /// - Note: Not public. Callers must not arm its wake-up or replace `onWakeup`: the scheduler owns them.
    package var eventLoop: EventLoopThread { self.bridge.loop }
}

extension RunwayScheduler {
    /// Calls `observer` each time the kernel confirms a process app's suspension (`suspended` true: every process
    /// stopped, or the cgroup frozen) or resumption (false), synchronously on the loop thread, with the instant the
    /// supervisor's check saw it (a fresh reading of the loop's clock, the clock of `TransitionEvent.at`; checks run
    /// every `ProcessOptions.confirmationPollMilliseconds` while one is pending). A confirmation that times out is
    /// not reported. Used by `runway bench --processes` and `Benchmarks/Sources/ProcessLifecycle`, and by any
    /// embedder that must know when an app is really stopped; same rules as `observeTransitions`: quick, never
    /// blocking, no synchronous call back into the scheduler.
    public func observeSuspensionConfirmations(_ observer: @escaping @Sendable (AppID, Bool, Instant) -> Void) {
        _ = self.bridge.sync { $0.addConfirmationObserver(observer) }
    }
}
