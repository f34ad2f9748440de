import CRunwayProcess

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One process, named by its pid and its start time (`/proc/PID/stat` field 22, clock ticks after boot), so
/// that a later process that reuses the pid is never taken for it. Values only; reading the kernel is done by
/// the callers, on the loop thread.
struct ProcessIdentity: Hashable, Sendable, CustomStringConvertible {
    var pid: Int32
    var startTime: UInt64

    /// The identity of the live process `pid` now, or nil when it is gone.
    static func current(_ pid: Int32) -> ProcessIdentity? {
        ProcFS.stat(pid).map { ProcessIdentity(pid: pid, startTime: $0.startTime) }
    }

    /// True while a process with this pid and this start time exists (a zombie included).
    var exists: Bool { ProcFS.stat(self.pid)?.startTime == self.startTime }

    /// True while this process exists and has not exited (not a zombie).
    var isAlive: Bool {
        guard let stat = ProcFS.stat(self.pid), stat.startTime == self.startTime else { return false }
        return stat.state != "Z" && stat.state != "X"
    }

    /// Sends `signal` to this process, and to no other that reuses its pid: through a pidfd, whose process is
    /// then checked to be this one (on kernels without pidfds, the check is made just before `kill`).
    ///
    /// - Returns: 0, or -errno (-ESRCH when this process no longer exists).
    @discardableResult
    func send(_ signal: Int32) -> Int32 {
        let pidfd = runway_pidfd_open(self.pid)
        if pidfd >= 0 {
            defer { close(pidfd) }
            guard self.exists else { return -ESRCH }
            return runway_pidfd_send_signal(pidfd, signal)
        }
        guard pidfd == -ENOSYS else { return pidfd }
        guard self.exists else { return -ESRCH }
        return runway_kill(self.pid, signal)
    }

    var description: String { "\(self.pid)@\(self.startTime)" }
}
