@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Suspending: `.suspend` and `.resume` with the app's mechanism, and the kernel's confirmation (P1), kept in
/// a `SuspensionConfirmation` per app. Loop thread only.
extension ProcessSupervisor {
    /// `.suspend`: freeze the cgroup, or SIGSTOP the group and every other process of the app (`+Tracking`);
    /// the confirmation is first checked on the next loop turn, then polled by the tick until confirmed or
    /// `options.confirmationTimeout` has passed. A protocol app that has not read what was written to it is
    /// suspended once it has, within `options.suspendDrainTimeout` (`+Draining`).
    package func suspend(_ app: AppID) {
        if self.holdsSuspensionForUnreadBytes(app) { return }
        self.setSuspended(true, app)
    }

    /// `.resume`: thaw or SIGCONT; confirmed as `suspend` is.
    package func resume(_ app: AppID) {
        self.cancelDrain(app)
        self.setSuspended(false, app)
    }

    func setSuspended(_ suspended: Bool, _ app: AppID) {
        guard var managed = self.apps[app], let child = managed.child, !child.hasExited else { return }
        var delivered = true
        switch managed.choice?.mechanism {
        case .freezer:
            let status = managed.cgroup?.setFrozen(suspended, keeping: managed.cgroupFiles) ?? ENOENT
            if status != 0 {
                delivered = false
                self.logger.warning(
                    "cgroup.freeze write failed",
                    metadata: ["app": "\(app)", "errno": .stringConvertible(status)]
                )
            }
        case .signal, nil:
            delivered = self.signalEveryProcess(app, suspended ? SIGSTOP : SIGCONT, rescanning: false)
            managed = self.apps[app] ?? managed
        }
        let now = self.loop.turnNow
        managed.signalled(suspending: suspended, now: now, timeout: self.options.confirmationTimeout)
        if !delivered {
            // P1: what the kernel refused is not waited for; the status says unconfirmed from now on.
            managed.confirmation?.signalRefused()
            if suspended { self.suspensionUnconfirmed(app) }
            self.logger.warning(
                suspended ? "suspension not confirmed" : "resumption not confirmed",
                metadata: [
                    "app": "\(app)", "mechanism": "\(managed.choice?.mechanism.rawValue ?? "-")",
                    "reason": "the kernel refused the request",
                ]
            )
        }
        self.apps[app] = managed
        // A resumption is looked at now (SIGCONT and a thaw take effect in the kernel before the
        // call returns); a suspension on the next loop turn, as the kernel has not stopped the app yet right
        // after the signal or the freeze write, and a batch of N requests shares that turn's tick.
        if !suspended {
            self.checkConfirmation(app, now: now)
            self.settlingActivity(of: app)  // Running again, it may fork again.
        }
        if self.apps[app]?.confirmation?.isPending == true {
            self.tickApps.insert(app)
            self.startTicking(soon: suspended)
        }
    }

    /// Reads the kernel for the app's pending confirmation and records the outcome; logs it once settled.
    /// Does nothing when nothing is pending. Called by `setSuspended` for a resumption and by the tick.
    func checkConfirmation(_ app: AppID, now: Instant) {
        guard var managed = self.apps[app], var confirmation = managed.confirmation, confirmation.isPending
        else { return }
        guard confirmation.mayLook(now: now) else { return }
        self.scanCounts.confirmationChecks += 1
        let shows = self.kernelShows(app, managed, suspended: confirmation.suspending)
        managed = self.apps[app] ?? managed  // The scan may have updated the tracked processes.
        let status = confirmation.kernelObserved(showsRequestedState: shows, now: now)
        managed.confirmation = confirmation
        self.apps[app] = managed
        let mechanism = managed.choice?.mechanism.rawValue ?? "-"
        switch status {
        case .pending:
            break
        case .confirmed(let after):
            self.logger.debug(
                confirmation.suspending ? "suspension confirmed" : "resumption confirmed",
                metadata: ["app": "\(app)", "mechanism": "\(mechanism)", "after": "\(after)"]
            )
            self.delegate?.processSuspensionConfirmed(app, suspended: confirmation.suspending)
        case .refused:
            break  // Logged when refused, by `setSuspended`.
        case .timedOut(let waited):
            if confirmation.suspending { self.suspensionUnconfirmed(app) }
            self.logger.info(
                confirmation.suspending ? "suspension not confirmed" : "resumption not confirmed",
                metadata: ["app": "\(app)", "mechanism": "\(mechanism)", "waited": "\(waited)"]
            )
        }
    }

    /// True when the kernel shows the app suspended (`suspended`) or running: `frozen` in `cgroup.events` for
    /// the freezer; for signals, the state in `/proc/PID/stat` of every process of the app: rescanned now for a
    /// suspension, the tracked ones for a resumption (what was stopped was tracked, or is in the
    /// group that SIGCONT reached). An observation, except that a process the scan finds for the first time
    /// (forked since the signal) gets the signal too.
    private func kernelShows(_ app: AppID, _ managed: Managed, suspended: Bool) -> Bool {
        switch managed.choice?.mechanism {
        case .freezer:
            guard let cgroup = managed.cgroup else { return false }
            return (cgroup.eventFlags(keeping: managed.cgroupFiles)?.frozen ?? false) == suspended
        case .signal, nil:
            if !suspended {
                // The main process's resumption as the kernel's wait reports it, when it does; the
                // others' (and the main process's otherwise) from /proc.
                var others = managed.tracked
                var mainRuns = false
                if let child = managed.child, child.kernelReportsContinued {
                    others = others.filter { $0.pid != child.pid }
                    mainRuns = true
                    self.scanCounts.continuedByWait += 1
                }
                let states = Self.states(of: others)
                return (mainRuns || !states.isEmpty) && !states.values.contains { $0.state == "T" }
            }
            // While a process already tracked still runs or sleeps, a suspension cannot be
            // confirmed; the rescan (which also stops what was forked since the signal) waits for the look that
            // can confirm. `D` is left to the full check (a vfork parent waits for a child not tracked yet).
            // A stopped state is kept until SIGCONT, so what this look read is reused by the walk and below.
            // The main process's reading from its pidfd's wait when that shows it stopped.
            var seed: [Int32: ProcFS.Stat] = [:]
            if let child = managed.child, let main = self.mainStatFromWait(managed, running: false) {
                seed[child.pid] = main
            }
            let known = Self.states(of: managed.tracked, known: seed)
            if known.values.contains(where: { !"TtZXD".contains($0.state) }) { return false }
            let before = managed.tracked
            self.refreshTracking([app], known: known)
            guard let tracked = self.apps[app]?.tracked, !tracked.isEmpty else { return false }
            self.stop(tracked.subtracting(before), of: app)
            return Self.showsStopped(Self.states(of: tracked, known: known))
        }
    }

    /// `/proc/PID/stat` of each of `processes` that is still the process tracked (same start time), by pid;
    /// a reading in `known` is used instead of reading again.
    static func states(
        of processes: Set<ProcessIdentity>,
        known: [Int32: ProcFS.Stat] = [:]
    ) -> [Int32: ProcFS.Stat] {
        var states: [Int32: ProcFS.Stat] = [:]
        for process in processes {
            if let stat = known[process.pid] ?? ProcFS.stat(process.pid), stat.startTime == process.startTime {
                states[process.pid] = stat
            }
        }
        return states
    }

    /// P1 for signals: every process shows `T` (or `t`, or has become a zombie), except that a process blocked
    /// in vfork() for a child stopped before its exec shows `D` until that child runs again: `D` is accepted
    /// for a process with a stopped child. False when `states` is empty.
    static func showsStopped(_ states: [Int32: ProcFS.Stat]) -> Bool {
        guard !states.isEmpty else { return false }
        return states.allSatisfy { pid, stat in
            switch stat.state {
            case "T", "t", "Z", "X": return true
            case "D": return states.values.contains { $0.parent == pid && $0.state == "T" }
            default: return false
            }
        }
    }
}
