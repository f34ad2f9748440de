import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Suspending: `.suspend` and `.resume` with the app's mechanism, and the kernel's confirmation (P1), kept in
/// a `SuspensionConfirmation` per app. Loop thread only.
extension ProcessSupervisor {
    /// `.suspend`: freeze the cgroup or SIGSTOP the group; the confirmation is checked now, then polled by the
    /// tick until confirmed or `options.confirmationTimeout` has passed. A protocol app that has not read what
    /// was written to it is frozen once it has, within `options.suspendDrainTimeout` (`+Draining`).
    func suspend(_ app: AppID) {
        if self.holdsSuspensionForUnreadBytes(app) { return }
        self.setSuspended(true, app)
    }

    /// `.resume`: thaw or SIGCONT; confirmed as `suspend` is.
    func resume(_ app: AppID) {
        self.cancelDrain(app)
        self.setSuspended(false, app)
    }

    func setSuspended(_ suspended: Bool, _ app: AppID) {
        guard var managed = self.apps[app], let child = managed.child, !child.hasExited else { return }
        switch managed.choice?.mechanism {
        case .freezer:
            let status = managed.cgroup?.setFrozen(suspended) ?? ENOENT
            if status != 0 {
                self.logger.info("cgroup.freeze write failed", metadata: ["app": "\(app)", "errno": "\(status)"])
            }
        case .signal, nil:
            child.signalGroup(suspended ? SIGSTOP : SIGCONT)
        }
        let now = self.loop.turnNow
        managed.confirmation = SuspensionConfirmation(
            suspending: suspended,
            since: now,
            timeout: self.options.confirmationTimeout
        )
        self.apps[app] = managed
        self.checkConfirmation(app, now: now)
        if self.apps[app]?.confirmation?.isPending == true { self.startTicking() }
    }

    /// Reads the kernel for the app's pending confirmation and records the outcome; logs it once settled.
    /// Does nothing when nothing is pending. Called by `setSuspended` and by the tick.
    func checkConfirmation(_ app: AppID, now: Instant) {
        guard var managed = self.apps[app], var confirmation = managed.confirmation, confirmation.isPending
        else { return }
        let shows = self.kernelShows(managed, suspended: confirmation.suspending)
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
        case .timedOut(let waited):
            self.logger.info(
                confirmation.suspending ? "suspension not confirmed" : "resumption not confirmed",
                metadata: ["app": "\(app)", "mechanism": "\(mechanism)", "waited": "\(waited)"]
            )
        }
    }

    /// True when the kernel shows the app suspended (`suspended`) or running: `frozen` in `cgroup.events` for
    /// the freezer, the process state in `/proc/PID/stat` for signals. An observation, not a decision.
    private func kernelShows(_ managed: Managed, suspended: Bool) -> Bool {
        switch managed.choice?.mechanism {
        case .freezer:
            return managed.cgroup.map { $0.isFrozen == suspended } ?? false
        case .signal, nil:
            // P1: state `T` of the app's process. A shell blocked in vfork() for a child that was stopped before
            // its exec shows `D` until that child runs again; then the child's `T` confirms it (a /proc scan,
            // only in that case).
            guard let pid = managed.child?.pid, let state = ProcFS.stat(pid)?.state else { return false }
            guard suspended else { return state != "T" }
            if state == "T" { return true }
            guard state == "D" else { return false }
            let states = ProcFS.members(ofProcessGroup: pid).compactMap { ProcFS.stat($0)?.state }
            return states.contains("T") && states.allSatisfy { $0 == "T" || $0 == "t" || $0 == "D" || $0 == "Z" }
        }
    }
}
