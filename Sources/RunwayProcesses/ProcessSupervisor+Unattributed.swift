import CLibUV
import CRunwayProcess
import RunwayLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the supervisor ends at close that no app ends: the unattributed processes (`+Tracking`), children of
/// this process in an app's session that no app claims (they left an app's tree and scrubbed `RUNWAY_APP`), and
/// what they started. None of them is the host's (those share this process's session), and once the apps are
/// gone nothing else would end them before the next daemon reads the state file. Loop thread only.
extension ProcessSupervisor {
    /// Ends the unattributed processes whose environment named no app, or an app of this supervisor, and what
    /// they started: stops them, walks their trees again for what forked meanwhile, SIGKILLs them all (through a
    /// pidfd checked against the start time), then waits up to `options.orphanReapTimeout` for each to be gone or
    /// a zombie, reaping those that are children here. One that names an app registered elsewhere is another
    /// supervisor's in this process (or a killed daemon's, left to its successor), and is left. What is still
    /// there after the wait stays in `unattributed`, for the state file and the next daemon.
    func endUnattributed() {
        // Another open supervisor of this process may have spawned a process it has not registered yet, which
        // this one cannot tell from an app's scrubbed escapee: only the last one to close ends them.
        guard OpenSupervisors.close() else { return }
        let attributions = self.processScan.environmentAttributions
        let roots = self.processScan.unattributed.filter { process in
            guard let named = attributions.known(pid: process.pid, startTime: process.startTime) else { return false }
            return named.map { self.appsByBundleIdentifier[$0] != nil } ?? true
        }
        guard !roots.isEmpty else { return }
        for process in roots { process.send(SIGSTOP) }
        let limit = max(1, self.options.trackedProcessLimit) * roots.count
        let walked = ProcessTree().descendants(of: roots.map { ($0.pid, Optional($0.startTime)) }, limit: limit)
        let killed = walked.processes.filter { $0.send(SIGKILL) == 0 }
        let wait = KilledProcessWait(since: Self.monotonicNow(), timeout: self.options.orphanReapTimeout)
        var waiting = killed
        while !waiting.isEmpty {
            waiting = waiting.filter { process in
                _ = runway_reap_nonblocking(process.pid)
                guard let stat = ProcFS.stat(process.pid), stat.startTime == process.startTime else { return false }
                return stat.state != "Z" && stat.state != "X"
            }
            let decision = wait.observed(remaining: waiting.count, now: Self.monotonicNow())
            guard decision == .lookAgain else { break }
            usleep(1_000)
        }
        if !waiting.isEmpty {
            self.logger.warning(
                "unattributed processes did not die in time",
                metadata: [
                    "pids": .array(waiting.map(\.pid).sorted().map { .stringConvertible($0) }),
                    "timeout": "\(self.options.orphanReapTimeout)",
                ]
            )
        }
        if !killed.isEmpty {
            self.logger.notice(
                "ended processes of no known app",
                metadata: [
                    "count": .stringConvertible(killed.count),
                    "pids": .array(killed.map(\.pid).sorted().map { .stringConvertible($0) }),
                ]
            )
        }
        self.processScan.unattributed.subtract(killed.subtracting(waiting))
    }
}

/// How many supervisors of this process are open (a daemon has one; a host may run several schedulers).
enum OpenSupervisors {
    private static let count = RunwayLock(0)

    static func open() { Self.count.withLock { $0 += 1 } }

    /// Counts one supervisor closed; true when it was the last one open.
    static func close() -> Bool {
        Self.count.withLock { count in
            count -= 1
            return count == 0
        }
    }
}
