import CLibUV
import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reaping: `.sendTerminateSignal` and `.kill`, the child's exit, and what it left behind (P2, L4, L6): the
/// rest of its cgroup or process group is killed with it and reaped here once re-parented (Runway is a child
/// subreaper), or forgotten after `options.orphanReapTimeout`. Loop thread only.
extension ProcessSupervisor {
    /// `.sendTerminateSignal`: SIGTERM to the app's processes (L4).
    func terminate(_ app: AppID) {
        guard let managed = self.apps[app], let child = managed.child, !child.hasExited else { return }
        if managed.choice?.mechanism == .freezer, let pids = managed.cgroup?.processes, !pids.isEmpty {
            for pid in pids { _ = runway_kill(pid, SIGTERM) }
        } else {
            child.signalGroup(SIGTERM)
        }
    }

    /// `.kill`: SIGKILL to every process of the app, frozen or stopped ones included, without thawing (P2).
    func kill(_ app: AppID) {
        guard let managed = self.apps[app], let child = managed.child, !child.hasExited else { return }
        managed.cgroup?.killAll()
        child.signalGroup(SIGKILL)
        _ = runway_kill(child.pid, SIGKILL)
    }

    /// `ChildProcessDelegate`: the main process exited and libuv reaped it. Kills what it left behind, records
    /// those processes as orphans to reap, and reports `processExited`.
    func child(_ child: ChildProcess, exited exit: ProcessExit) {
        let app = child.app
        guard var managed = self.apps[app], managed.child === child else { return }
        managed.lastExit = exit
        managed.confirmation = nil
        let now = self.loop.turnNow
        // Whatever the app started and left behind is killed with it (P2): the rest of its cgroup, or its
        // process group. Those processes are re-parented here (subreaper) and reaped by the tick.
        // A scan of /proc only when the group still has members (kill(-pgid, 0) succeeds): most apps leave none.
        var leftovers = runway_kill(-child.pid, 0) == 0 ? Set(ProcFS.members(ofProcessGroup: child.pid)) : []
        if let cgroup = managed.cgroup {
            let remaining = cgroup.processes
            if !remaining.isEmpty {
                leftovers.formUnion(remaining)
                cgroup.killAll()
            }
            // The next run must not start frozen.
            if cgroup.setFrozen(false) != 0 {
                self.logger.info("cannot thaw the app's cgroup", metadata: ["app": "\(app)"])
            }
        }
        _ = runway_kill(-child.pid, SIGKILL)
        for pid in leftovers where pid != child.pid {
            _ = runway_kill(pid, SIGKILL)
            self.orphans.append(Orphan(pid: pid, app: app, since: now))
        }
        child.closeChannel()
        self.apps[app] = managed
        self.logger.info(
            "process exited",
            metadata: [
                "app": "\(app)", "pid": "\(child.pid)", "exit": "\(exit)",
                "leftovers": "\(leftovers.count - (leftovers.contains(child.pid) ? 1 : 0))",
            ]
        )
        self.startTicking()
        self.delegate?.processExited(app, exit: exit)
    }

    /// Reaps processes an app left behind once they are re-parented here; forgets those that are gone, and
    /// those still there (owned by someone else, or unkillable) once `options.orphanReapTimeout` has passed.
    /// Called by the tick.
    func reapOrphans(now: Instant) {
        let timeout = self.options.orphanReapTimeout
        self.orphans.removeAll { orphan in
            let result = runway_reap_nonblocking(orphan.pid)
            if result == orphan.pid { return true }
            if result == -ECHILD && runway_kill(orphan.pid, 0) == -ESRCH { return true }
            if orphan.isOverdue(now: now, timeout: timeout) {
                self.logger.info(
                    "left-behind process not reaped in time; forgotten",
                    metadata: ["app": "\(orphan.app)", "pid": "\(orphan.pid)", "timeout": "\(timeout)"]
                )
                return true
            }
            return false
        }
    }
}
