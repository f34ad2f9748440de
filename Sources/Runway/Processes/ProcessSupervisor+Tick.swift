import CLibUV
import RunwayCore

/// The housekeeping tick: one libuv timer, on the next loop turn after a suspend or resume and then every
/// `options.confirmationPollMilliseconds` (1 ms), that checks
/// suspensions waiting for the app to read its channel (`+Draining`), pending confirmations (`+Suspending`) and
/// reaps leftovers (`+Reaping`). It runs only while one of them is
/// pending, and it is bookkeeping, not a deadline: the core's deadlines use the loop's own wake-up.
/// Loop thread only.
extension ProcessSupervisor {
    /// Starts the timer unless it runs or the supervisor is closed. With `soon`, its next tick is on the next
    /// loop turn (a zero timeout), then every interval: the tick re-arms it that way at most once per tick, so
    /// however many requests a batch makes, the loop polls once per turn at most.
    func startTicking(soon: Bool = false) {
        guard !self.closed else { return }
        if self.ticking && (!soon || self.batch.tickSoon) { return }
        self.ticking = true
        self.batch.tickSoon = soon
        let interval = self.options.confirmationPollMilliseconds
        uv_timer_start(
            self.tick,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<ProcessSupervisor>.fromOpaque(data).takeUnretainedValue().tickFired()
            },
            soon ? 0 : interval,
            interval
        )
    }

    /// The main process of each app launched since the last tick joins the app's tracked processes
    /// with its start time, unless a scan already put it there; the state file is marked dirty when it does.
    func resolvePendingIdentities() {
        guard !self.batch.pendingIdentities.isEmpty else { return }
        let pending = self.batch.pendingIdentities
        self.batch.pendingIdentities = [:]
        var changed = false
        for (app, child) in pending {
            guard var managed = self.apps[app], managed.child === child, !child.hasExited else { continue }
            guard !managed.tracked.contains(where: { $0.pid == child.pid }),
                let identity = ProcessIdentity.current(child.pid)
            else { continue }
            managed.tracked.insert(identity)
            self.apps[app] = managed
            changed = true
        }
        if changed { self.markStateDirty() }
    }

    func stopTicking() {
        guard self.ticking else { return }
        self.ticking = false
        self.batch.tickSoon = false
        uv_timer_stop(self.tick)
    }

    /// One tick at `loop.turnNow`: confirmations first, then leftovers; stops when neither is pending, then
    /// lets a waiting `finish` complete.
    private func tickFired() {
        self.batch.tickSoon = false
        self.resolvePendingIdentities()
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
