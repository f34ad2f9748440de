import CLibUV
@_spi(Processes) import RunwayCore

/// The housekeeping tick: one libuv timer that checks suspensions waiting for the app to read its channel
/// (`+Draining`), pending confirmations (`+Suspending`) and reaps leftovers (`+Reaping`). When it runs is decided
/// by `HousekeepingTickSchedule` (only while one of them is pending; on the next loop turn after a suspension, then
/// every `options.confirmationPollMilliseconds`); this file performs the arming. Loop thread only.
extension ProcessSupervisor {
    /// Starts the timer as `tickSchedule` decides, unless the supervisor is closed. With `soon`, its next tick is on
    /// the next loop turn, then every interval.
    func startTicking(soon: Bool = false) {
        guard !self.closed else { return }
        guard case .start(let first, let every) = self.tickSchedule.requested(soon: soon) else { return }
        uv_timer_start(
            self.tick,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<ProcessSupervisor>.fromOpaque(data).takeUnretainedValue().tickFired()
            },
            first,
            every
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
        if self.tickSchedule.stopped() { uv_timer_stop(self.tick) }
    }

    /// One tick at `loop.turnNow`: confirmations first, then leftovers; stops when neither is pending, then
    /// lets a waiting `finish` complete.
    private func tickFired() {
        self.tickSchedule.fired()
        self.resolvePendingIdentities()
        let now = self.loop.turnNow
        for app in self.appIDs(where: { $0.drain != nil }) {
            self.checkDrain(app, now: now)
        }
        for app in self.appIDs(where: { $0.confirmation?.isPending == true }) {
            self.checkConfirmation(app, now: now)
        }
        self.reapOrphans(now: now)
        let confirming = self.anyApp { $0.confirmation?.isPending == true }
        if self.tickSchedule.settled(pending: confirming || self.isDraining || !self.leftovers.isEmpty) {
            uv_timer_stop(self.tick)
        }
        self.finishIfSettled()
    }

    /// The apps whose record satisfies `condition`, each record read in place. A `for (app, managed) in self.apps`
    /// copies every app's whole record (its spec, sets and handles retained, then released) to test one field, and
    /// the tick did that three times per app while a confirmation was pending.
    func appIDs(where condition: (Managed) -> Bool) -> [AppID] {
        var found: [AppID] = []
        var index = self.apps.startIndex
        while index != self.apps.endIndex {
            if condition(self.apps.values[index]) { found.append(self.apps.keys[index]) }
            self.apps.formIndex(after: &index)
        }
        return found
    }

    /// True when some app's record satisfies `condition`, read in place (`appIDs(where:)`).
    func anyApp(where condition: (Managed) -> Bool) -> Bool {
        var index = self.apps.startIndex
        while index != self.apps.endIndex {
            if condition(self.apps.values[index]) { return true }
            self.apps.formIndex(after: &index)
        }
        return false
    }
}
