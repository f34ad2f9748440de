import CRunwayProcess
@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The second step of a freezer app's `.sendTerminateSignal` (`terminate(_:)`, L4): SIGTERM, a loop turn after the
/// main process's group got it, to the processes of the app's cgroup outside that group. Loop thread only.
extension ProcessSupervisor {
    /// For each freezer app sent SIGTERM on the last turn whose main process is still running (the kernel's wait on
    /// its pidfd does not report an exit either): SIGTERM to the processes of its cgroup outside the main process's
    /// group, except those signalled with the group. An app whose main process has exited is left to its exit's
    /// handling, which kills what is left in its cgroup.
    func terminateTheRest() {
        guard !self.batch.pendingTerminations.isEmpty else { return }
        let pending = self.batch.pendingTerminations
        self.batch.pendingTerminations = [:]
        for (app, entry) in pending {
            let child = entry.child
            guard self.apps[app]?.child === child, !child.hasExited, child.waitReport != .exited else { continue }
            self.scanCounts.terminationRestLooks += 1
            for pid in self.processesOutsideGroup(app, child, except: entry.signalled) {
                let status = runway_kill(pid, SIGTERM)
                if Self.isRefusal(status) { self.signalRefused(app, pid: pid, signal: SIGTERM, status: status) }
            }
        }
    }

    /// The processes of the app's cgroup outside the main process's group that `signalled` does not hold (a
    /// `/proc/PID/stat` read for each process other than the main one).
    private func processesOutsideGroup(
        _ app: AppID,
        _ child: ChildProcess,
        except signalled: Set<ProcessIdentity>
    ) -> [Int32] {
        guard let cgroup = self.apps[app]?.cgroup else { return [] }
        let done = Set(signalled.map(\.pid))
        return cgroup.processes.filter { pid in
            pid != child.pid && !done.contains(pid) && ProcFS.stat(pid).map { $0.processGroup != child.pid } == true
        }
    }
}
