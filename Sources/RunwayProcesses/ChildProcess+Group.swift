import CRunwayProcess

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The child's process group: `runway_spawn` makes the child a session leader, so its group is the child and what
/// it started without leaving the group. Loop thread only.
extension ChildProcess {
    /// Sends `signal` to the child's process group (the child and what it started), falling back to the
    /// child alone. Returns 0 or -errno.
    @discardableResult
    func signalGroup(_ signal: Int32) -> Int32 {
        guard self.pid > 0 else { return -ESRCH }
        let status = runway_kill(-self.pid, signal)
        return status == 0 || self.hasExited ? status : runway_kill(self.pid, signal)
    }
}
