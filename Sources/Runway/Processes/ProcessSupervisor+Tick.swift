import CLibUV
import RunwayCore

/// The housekeeping tick: one libuv timer, every `options.confirmationPollMilliseconds` (1 ms), that checks
/// suspensions waiting for the app to read its channel (`+Draining`), pending confirmations (`+Suspending`) and
/// reaps leftovers (`+Reaping`). It runs only while one of them is
/// pending, and it is bookkeeping, not a deadline: the core's deadlines use the loop's own wake-up.
/// Loop thread only.
extension ProcessSupervisor {
    /// Starts the timer unless it runs or the supervisor is closed.
    func startTicking() {
        guard !self.ticking, !self.closed else { return }
        self.ticking = true
        let interval = self.options.confirmationPollMilliseconds
        uv_timer_start(
            self.tick,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<ProcessSupervisor>.fromOpaque(data).takeUnretainedValue().tickFired()
            },
            interval,
            interval
        )
    }

    func stopTicking() {
        guard self.ticking else { return }
        self.ticking = false
        uv_timer_stop(self.tick)
    }

    /// One tick at `loop.turnNow`: confirmations first, then leftovers; stops when neither is pending, then
    /// lets a waiting `finish` complete.
    private func tickFired() {
        let now = self.loop.turnNow
        for (app, managed) in self.apps where managed.drain != nil {
            self.checkDrain(app, now: now)
        }
        for (app, managed) in self.apps where managed.confirmation?.isPending == true {
            self.checkConfirmation(app, now: now)
        }
        self.reapOrphans(now: now)
        let confirming = self.apps.values.contains { $0.confirmation?.isPending == true }
        if !confirming && !self.isDraining && self.orphans.isEmpty {
            self.stopTicking()
        }
        self.finishIfSettled()
    }
}
