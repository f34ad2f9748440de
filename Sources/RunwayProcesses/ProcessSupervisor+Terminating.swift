import CRunwayProcess
@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The second step of `.sendTerminateSignal` (`terminate(_:)`, L4): SIGTERM, a loop turn after the main process's
/// group got it, to the app's processes outside that group. Loop thread only.
extension ProcessSupervisor {
    /// For each app sent SIGTERM on the last turn whose main process is still running (the kernel's wait on its pidfd
    /// does not report an exit either): SIGTERM to the processes of its cgroup outside the main process's group
    /// (freezer), or to those a fresh scan of its tree finds outside the group (signal mode), except those signalled
    /// with the group. An app whose main process has exited is left to its exit's handling, which kills what it left.
    func terminateTheRest() {
        guard !self.batch.pendingTerminations.isEmpty else { return }
        let pending = self.batch.pendingTerminations
        self.batch.pendingTerminations = [:]
        for (app, entry) in pending {
            let child = entry.child
            guard self.apps[app]?.child === child, !child.hasExited, child.waitReport != .exited else { continue }
            self.scanCounts.terminationRestLooks += 1
            for (pid, identity) in self.processesOutsideGroup(app, child, except: entry.signalled) {
                let status = identity?.send(SIGTERM) ?? runway_kill(pid, SIGTERM)
                if Self.isRefusal(status) { self.signalRefused(app, pid: pid, signal: SIGTERM, status: status) }
            }
        }
    }

    /// The app's processes outside the main process's group that `signalled` does not hold: its cgroup's with the
    /// freezer (a `/proc/PID/stat` read for each process other than the main one), else its tracked ones after a scan,
    /// each with its identity (signalled through a pidfd, never a reused pid).
    private func processesOutsideGroup(
        _ app: AppID,
        _ child: ChildProcess,
        except signalled: Set<ProcessIdentity>
    ) -> [(pid: Int32, identity: ProcessIdentity?)] {
        let done = Set(signalled.map(\.pid))
        if let managed = self.apps[app], managed.choice?.mechanism == .freezer, let cgroup = managed.cgroup {
            return cgroup.processes.filter { pid in
                pid != child.pid && !done.contains(pid) && ProcFS.stat(pid).map { $0.processGroup != child.pid } == true
            }.map { ($0, nil) }
        }
        self.refreshTracking([app])
        return self.trackedOutsideGroup(app).filter { !signalled.contains($0) }.map { ($0.pid, $0) }
    }
}
