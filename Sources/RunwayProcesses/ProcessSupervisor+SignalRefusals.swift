import Logging
@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Signals the kernel refused: any error but ESRCH (the process is gone, which is what a kill wants) from a
/// signal sent to an app's process. None passes in silence: each is logged with the app, pid, signal and errno,
/// and counted (`signalRefusedByKernel`, for the metrics). A refused SIGSTOP or SIGCONT leaves the suspension or
/// resumption unconfirmed at once (`+Suspending`); a refused SIGTERM or SIGKILL goes through the app's
/// `cgroup.kill` when it has a cgroup, else the app is logged as left running (`+Reaping`). Loop thread only.
extension ProcessSupervisor {
    /// True when `status` (0 or -errno, as `kill` wrappers return it) is a refusal: the process exists and did
    /// not get the signal.
    static func isRefusal(_ status: Int32) -> Bool { status != 0 && status != -ESRCH }

    /// Logs and counts a signal the kernel refused for `pid` of `app`.
    ///
    /// - Parameters:
    ///   - status: -errno of the failed call.
    ///   - quiet: The refusal does not matter (a `cgroup.kill` reached the process): logged at debug, not counted.
    func signalRefused(_ app: AppID, pid: Int32, signal: Int32, status: Int32, quiet: Bool = false) {
        var metadata: Logger.Metadata = [
            "app": "\(app)", "pid": .stringConvertible(pid), "signal": "\(Self.signalName(signal))",
            "errno": .stringConvertible(-status), "error": "\(String(cString: strerror(-status)))",
        ]
        if status == -EPERM {
            // kill(2) refuses a sender without CAP_KILL whose user is not the target's (a security module may
            // refuse as well): the daemon's deployment.
            metadata["cause"] = "the daemon lacks CAP_KILL and the process runs as another user"
        }
        if quiet {
            self.logger.debug("signal refused; the app's cgroup.kill reached the process", metadata: metadata)
            return
        }
        self.logger.warning("signal refused by the kernel", metadata: metadata)
        self.signalRefusedByKernel(app, Self.signalName(signal))
    }

    /// SIGSTOP to `processes` of `app` found since its suspension's signal; a refusal is reported (the
    /// confirmation then times out, as the process runs on).
    func stop(_ processes: Set<ProcessIdentity>, of app: AppID) {
        for process in processes {
            let status = process.send(SIGSTOP)
            if Self.isRefusal(status) { self.signalRefused(app, pid: process.pid, signal: SIGSTOP, status: status) }
        }
    }

    /// True while `app` runs although its SIGKILL was refused and no `cgroup.kill` reached it (`kill`).
    package func isKillRefused(_ app: AppID) -> Bool {
        guard let managed = self.apps[app], managed.killRefused, let child = managed.child else { return false }
        return !child.hasExited
    }

    /// `SIGSTOP`, `SIGCONT`, `SIGTERM`, `SIGKILL` (the signals sent to apps), else `signal N`.
    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSTOP: return "SIGSTOP"
        case SIGCONT: return "SIGCONT"
        case SIGTERM: return "SIGTERM"
        case SIGKILL: return "SIGKILL"
        default: return "signal \(signal)"
        }
    }
}
