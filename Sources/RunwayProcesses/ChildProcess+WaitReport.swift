import CRunwayProcess

/// The main process's state as the kernel's wait on its pidfd reports it, so that a confirmation and a scan need
/// not read `/proc/PID/stat` for it. Loop thread only.
extension ChildProcess {
    /// True when the kernel's wait reports the child continued since it last stopped (`waitReport`): a resumption of
    /// the main process seen without reading `/proc`. False when it cannot tell: never stopped,
    /// stopped again, exited, or another waiter took the report.
    var kernelReportsContinued: Bool { self.waitReport == .continued }

    /// What the kernel's wait on the child's pidfd reports (`runway_pidfd_wait_state`), without consuming it.
    enum WaitReport: Equatable {
        /// Exited, not reaped yet (the pidfd's poll handle reaps it).
        case exited
        /// Its whole thread group is stopped by a signal.
        case stopped
        /// Continued since it last stopped, and not stopped again: it runs or sleeps.
        case continued
        /// None of these: it runs or sleeps (never stopped, or another waiter took the report), or is in a state
        /// the wait does not report (a ptrace stop, a vfork parent).
        case neither
        /// The wait cannot tell: the pidfd is closed (reaped), or the call failed.
        case unavailable
    }

    /// The kernel's wait on the pidfd, looked at now: how the main process's state is known
    /// without reading `/proc/PID/stat`. Loop thread only.
    var waitReport: WaitReport {
        guard self.pidfd >= 0, !self.hasExited else { return .unavailable }
        switch runway_pidfd_wait_state(self.pidfd) {
        case 2: return .exited
        case 1: return .stopped
        case 3: return .continued
        case 0: return .neither
        default: return .unavailable
        }
    }
}
