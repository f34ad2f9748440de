import CLibUV
@_spi(Processes) import RunwayCore

/// The housekeeping tick: one libuv timer that checks suspensions waiting for the app to read its channel
/// (`+Draining`) and pending confirmations (`+Suspending`), reads the start times the boot clock did not give,
/// sends a freezer app's second SIGTERM (`+Terminating`), looks for exited orphans (`+Zombies`) and reaps leftovers
/// (`+Reaping`). When it runs is decided by `HousekeepingTickSchedule` (only while one of them is pending; on the
/// next loop turn after a suspension, then every `options.confirmationPollMilliseconds`); this file performs the
/// arming. Loop thread only.
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

    /// The main process of each app launched since the last tick whose start time the boot clock did not give
    /// (`BootClockStartTime`) joins the app's tracked processes with the one `/proc/PID/stat` shows, unless a scan
    /// already put it there; the state file is marked dirty when it does.
    func resolvePendingIdentities() {
        guard !self.batch.pendingIdentities.isEmpty else { return }
        let pending = self.batch.pendingIdentities
        self.batch.pendingIdentities = [:]
        var changed = false
        for (app, child) in pending {
            guard var managed = self.apps[app], managed.child === child, !child.hasExited else { continue }
            guard !managed.tracked.contains(where: { $0.pid == child.pid }) else { continue }
            self.scanCounts.identityReads += 1
            guard let identity = ProcessIdentity.current(child.pid) else { continue }
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
        self.terminateTheRest()
        self.zombieLookIfWanted()
        let now = self.loop.turnNow
        // Only the apps waiting for a tick, not every app: a tick every millisecond during a suspension must not
        // cost the loop O(apps).
        self.scanCounts.tickAppLooks += self.tickApps.count
        for app in self.tickApps where self.apps[app]?.drain != nil {
            self.checkDrain(app, now: now)
        }
        // A drain that ended in this tick signalled its app, whose confirmation is then pending.
        for app in self.tickApps where self.apps[app]?.confirmation?.isPending == true {
            self.checkConfirmation(app, now: now)
        }
        self.reapOrphans(now: now)
        self.tickApps = self.tickApps.filter { app in
            self.apps[app]?.drain != nil || self.apps[app]?.confirmation?.isPending == true
        }
        let confirming = !self.tickApps.isEmpty
        if self.tickSchedule.settled(pending: confirming || !self.leftovers.isEmpty) {
            uv_timer_stop(self.tick)
        }
        self.finishIfSettled()
    }
}
