#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The child's `oom_score_adj` (P3), written through a descriptor kept open for the run: the core gives
/// a value at each background and foreground change, and opening `/proc/PID/oom_score_adj` each time (a path lookup
/// under `/proc/PID`) cost more than the write. The descriptor names this child's process, not its pid: once the
/// process is gone a write fails with ESRCH, whatever reuses the pid. Loop thread only.
extension ChildProcess {
    /// Writes `value` (-1000...1000) to the child's `oom_score_adj`, opening the file at the first write.
    ///
    /// - Returns: 0, or the errno of the failing call (ESRCH once the exit is reaped).
    func writeOOMScore(_ value: Int) -> Int32 {
        guard !self.hasExited, self.pid > 0 else { return ESRCH }
        if self.oomScoreFile < 0 {
            let descriptor = open("/proc/\(self.pid)/oom_score_adj", O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return errno }
            self.oomScoreFile = descriptor
        }
        let text = Array("\(value)".utf8)
        let written = text.withUnsafeBytes { pwrite(self.oomScoreFile, $0.baseAddress, $0.count, 0) }
        if written == text.count { return 0 }
        return written < 0 ? errno : EIO
    }

    /// Closes the `oom_score_adj` descriptor, if open (at the exit, and when the object goes).
    func closeOOMScoreFile() {
        guard self.oomScoreFile >= 0 else { return }
        close(self.oomScoreFile)
        self.oomScoreFile = -1
    }
}
