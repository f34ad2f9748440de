@_spi(Processes) import RunwayCore

extension RunwayScheduler {
    /// Calls `observer` each time the kernel confirms a process app's suspension (`suspended` true: every process
    /// stopped, or the cgroup frozen) or resumption (false), synchronously on the loop thread, with the instant the
    /// supervisor's check saw it (a fresh reading of the loop's clock, the clock of `TransitionEvent.at`; checks run
    /// every `ProcessOptions.confirmationPollMilliseconds` while one is pending). A confirmation that times out is
    /// not reported. Used by `runway bench --processes` and `Benchmarks/Sources/ProcessLifecycle`, and by any
    /// embedder that must know when an app is really stopped; same rules as `observeTransitions`: quick, never
    /// blocking, no synchronous call back into the scheduler.
    @_spi(Processes)
    public func observeSuspensionConfirmations(_ observer: @escaping @Sendable (AppID, Bool, Instant) -> Void) {
        _ = self.bridge.sync { $0.addConfirmationObserver(observer) }
    }
}
