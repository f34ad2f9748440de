import RunwayCore

extension LoopDriver {
    /// `ProcessSupervisorDelegate`: the kernel confirmed a suspension or resumption of `app` (P1). Calls every
    /// confirmation observer with a fresh clock reading: the instant the supervisor's check saw the state, which is
    /// up to `ProcessOptions.confirmationPollMilliseconds` after the kernel reached it. Loop thread only.
    package func processSuspensionConfirmed(_ app: AppID, suspended: Bool) {
        self.assertOnLoop()
        guard !self.confirmationObservers.isEmpty else { return }
        let now = self.loop.now()
        for observer in self.confirmationObservers { observer(app, suspended, now) }
    }

    func addConfirmationObserver(_ observer: @escaping @Sendable (AppID, Bool, Instant) -> Void) {
        self.assertOnLoop()
        self.confirmationObservers.append(observer)
    }
}
