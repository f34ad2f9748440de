import CRunwayProcess
@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reaping: `.sendTerminateSignal` and `.kill`, the child's exit, and what it left behind (P2, L4, L6): the
/// rest of its cgroup, process group and tracked processes (`+Tracking`) is killed with it and reaped here
/// once re-parented (Runway is a child subreaper), or forgotten after `options.orphanReapTimeout`. Loop
/// thread only.
extension ProcessSupervisor {
    /// `.sendTerminateSignal`: SIGTERM to the app's processes (L4).
    ///
    /// - Signal mode: to its process group and every process tracked outside it, after a fresh scan of its tree. The
    ///   scan must come first: a process that left the group and no scan has seen yet is found only through its
    ///   parent, and once the main process dies of the SIGTERM it is re-parented here with nothing to say whose it
    ///   was when it scrubbed `RUNWAY_APP`.
    /// - Freezer: in two steps. Now, to the main process's group and the processes already tracked outside it,
    ///   without reading anything; on the next loop turn, to the cgroup's other processes, unless the main process
    ///   has exited by then (`+Terminating`): its exit kills whatever is left in the cgroup (`child(_:exited:)`), so
    ///   an app that ends at SIGTERM, the usual answer, costs no read of `cgroup.procs`.
    ///
    /// A refused SIGTERM is logged and counted; the core's `.kill` follows at the end of `TerminationGrace` as for an
    /// app that ignores SIGTERM.
    package func terminate(_ app: AppID) {
        guard let managed = self.apps[app], let child = managed.child, !child.hasExited else { return }
        guard managed.choice?.mechanism == .freezer, managed.cgroup != nil else {
            self.signalEveryProcess(app, SIGTERM)
            return
        }
        self.signalEveryProcess(app, SIGTERM, rescanning: false)
        self.batch.pendingTerminations[app] = (child, managed.tracked)
        self.startTicking(soon: true)
    }

    /// `.kill`: SIGKILL to every process of the app, frozen or stopped ones included, without thawing (P2).
    /// `cgroup.kill` needs no permission to signal, so a SIGKILL the kernel refuses (the daemon without CAP_KILL,
    /// the app another user) still ends an app with a cgroup; one without stays running and `terminating`, and
    /// the log says so.
    package func kill(_ app: AppID) {
        guard let managed = self.apps[app], let child = managed.child, !child.hasExited else { return }
        let viaCgroup = managed.cgroup?.killAll() ?? false
        // What is already known dies first, so the /proc scan is not on the kill's path (B6: the budget is a
        // wall); the scan then finds what forked or escaped since the last one, and that is killed too. A
        // process refused twice is reported once.
        let delivered = self.signalEveryProcess(app, SIGKILL, rescanning: false, quietRefusals: viaCgroup)
        _ = runway_kill(child.pid, SIGKILL)
        let rescanDelivered = self.signalEveryProcess(app, SIGKILL, quietRefusals: viaCgroup || !delivered)
        if !viaCgroup && !(delivered && rescanDelivered) {
            self.apps[app]?.killRefused = true
            self.logger.warning(
                "cannot kill the app: SIGKILL refused and no cgroup.kill; it is left running and terminating",
                metadata: ["app": "\(app)", "pid": .stringConvertible(child.pid)]
            )
        }
    }

    /// `ChildProcessDelegate`: the main process exited and its pidfd reaped it. Kills what it left behind, records
    /// those processes as orphans to reap, and reports `processExited`.
    func child(_ child: ChildProcess, exited exit: ProcessExit) {
        let app = child.app
        SpawnedChildren.reaped(child.pid)
        guard self.apps[app]?.child === child else { return }
        // Whatever the app started and left behind is killed with it (P2): its tracked processes (the scan
        // follows them from those already tracked, the main process being gone: `leaveBehind`), the rest of
        // its cgroup and of its process group. They are re-parented here (subreaper) and reaped by the tick
        // or the zombie sweep.
        let orphansBefore = self.leftovers.count
        self.refreshTracking([app])
        // What died before this exit was handled is a zombie no scan follows, and its SIGCHLD may have been handled
        // already: looked for on the next loop turn, once for every exit of this one (the supervisor's close sweeps
        // whatever is left).
        if self.options.reapsOrphans { self.zombieLookWanted() }
        guard var managed = self.apps[app] else { return }
        // Only a cgroup this supervisor froze (or tried to: the last request was a suspension), or one someone else
        // froze, can be frozen now: `cgroup.events` says so, and whether processes are left.
        let mayBeFrozen = managed.exited(exit)
        self.descriptorsReleased(&managed)
        let now = self.loop.turnNow
        // A scan of the group only when it still has members (kill(-pgid, 0) finds one; EPERM: members the
        // daemon may not signal): most apps leave none.
        let groupHasMembers = runway_kill(-child.pid, 0) != -ESRCH
        var leftovers = groupHasMembers ? Set(ProcFS.members(ofProcessGroup: child.pid)) : []
        leftovers.subtract(self.leftovers.pids)
        var killedViaCgroup = false
        if let cgroup = managed.cgroup {
            // One read of `cgroup.events` instead of `cgroup.procs` for an empty cgroup: it also shows a freeze
            // this supervisor did not ask for (an operator's), which left in place would freeze the next spawn's
            // CLONE_VFORK child before its exec, with the loop waiting for that exec.
            let flags = cgroup.eventFlags(keeping: managed.cgroupFiles)
            let remaining = flags?.populated == false ? [] : cgroup.processes
            if !remaining.isEmpty {
                leftovers.formUnion(remaining)
                killedViaCgroup = cgroup.killAll()
            }
            // The cgroups the app made below its own (an app of the daemon's user can): emptied by the kill
            // above (it reaches every descendant); one whose processes are still dying goes at the daemon's stop.
            if cgroup.hasDescendants != false { cgroup.removeDescendants() }
            // The next run must not start frozen (no write when it is not frozen).
            let frozen = mayBeFrozen || flags?.frozen != false || !remaining.isEmpty
            if frozen && cgroup.setFrozen(false, keeping: managed.cgroupFiles) != 0 {
                self.logger.info("cannot thaw the app's cgroup", metadata: ["app": "\(app)"])
            }
        }
        // An empty group gains no member (nothing is left in it to fork one): no SIGKILL to send then.
        if groupHasMembers { _ = runway_kill(-child.pid, SIGKILL) }
        for pid in leftovers where pid != child.pid {
            let status = runway_kill(pid, SIGKILL)
            if Self.isRefusal(status) {
                self.signalRefused(app, pid: pid, signal: SIGKILL, status: status, quiet: killedViaCgroup)
            }
            self.leftovers.left(Orphan(pid: pid, app: app, since: now, startTime: ProcFS.stat(pid)?.startTime))
        }
        child.closeChannel()
        managed.cgroupFiles?.close()
        managed.cgroupFiles = nil
        self.apps[app] = managed
        self.logger.info(
            "process exited",
            metadata: [
                "app": "\(app)", "pid": .stringConvertible(child.pid), "exit": "\(exit)",
                "leftovers": .stringConvertible(self.leftovers.count - orphansBefore),
            ]
        )
        self.startTicking()
        self.markStateDirty()
        self.delegate?.processExited(app, exit: exit)
    }

    /// SIGKILLs the processes still tracked for an app whose main process has exited, and records them as
    /// orphans to reap. Called by `refreshTracking` for every such app.
    func leaveBehind(_ app: AppID) {
        guard var managed = self.apps[app], managed.child?.hasExited == true, !managed.tracked.isEmpty else { return }
        let now = self.loop.turnNow
        // The processes of an app with a cgroup get the exit's `cgroup.kill` as well: a refusal is not reported.
        let quiet = managed.cgroup != nil
        for process in managed.tracked where process.pid != managed.child?.pid {
            let status = process.send(SIGKILL)
            if Self.isRefusal(status) {
                self.signalRefused(app, pid: process.pid, signal: SIGKILL, status: status, quiet: quiet)
            }
            self.leftovers.left(Orphan(pid: process.pid, app: app, since: now, startTime: process.startTime))
        }
        managed.tracked = []
        self.apps[app] = managed
        self.startTicking()
    }

    /// Reaps processes an app left behind once they are re-parented here; forgets those that are gone, and
    /// those still there (owned by someone else, or unkillable) once `options.orphanReapTimeout` has passed.
    /// Called by the tick.
    func reapOrphans(now: Instant) {
        let timeout = self.options.orphanReapTimeout
        let (removed, givenUp) = self.leftovers.sweep(now: now, timeout: timeout) { orphan in
            let result = runway_reap_nonblocking(orphan.pid)
            return result == orphan.pid || (result == -ECHILD && runway_kill(orphan.pid, 0) == -ESRCH)
        }
        for orphan in givenUp {
            self.logger.info(
                "left-behind process not reaped in time; forgotten",
                metadata: ["app": "\(orphan.app)", "pid": .stringConvertible(orphan.pid), "timeout": "\(timeout)"]
            )
        }
        if removed > 0 { self.markStateDirty() }
    }
}
