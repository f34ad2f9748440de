import CLibUV
import CRunwayProcess
@_spi(Processes) import RunwayCore

/// Draining: a `.suspend` of a protocol app with unread bytes on its channel waits until the app has read them
/// (`SuspensionDrain`, `ProcessOptions.suspendDrainTimeout`), so that the answer to its last `endBackgroundTask`
/// reaches it before it is frozen. Polled by the tick. Loop thread only.
extension ProcessSupervisor {
    /// Called by `.suspend` before freezing: starts a drain and returns true when the app has unread bytes on its
    /// channel, or was written to in this loop turn; false when it can be frozen now.
    func holdsSuspensionForUnreadBytes(_ app: AppID) -> Bool {
        let now = self.loop.turnNow
        guard var managed = self.apps[app], let child = managed.child, !child.hasExited,
            SuspensionDrain.isNeeded(
                unreadBytes: Self.unreadBytes(child),
                writtenThisTurn: managed.lastWrite == now,
                timeout: self.options.suspendDrainTimeout
            )
        else { return false }
        managed.drainStarted(now: now, timeout: self.options.suspendDrainTimeout)
        self.apps[app] = managed
        self.tickApps.insert(app)
        self.startTicking()
        return true
    }

    /// A resume (or anything else that supersedes the suspension) drops a drain still waiting.
    func cancelDrain(_ app: AppID) {
        self.apps[app]?.drain = nil
    }

    /// One look at a waiting drain at `now`: freezes the app once it has read everything and is idle, or at the
    /// timeout. A child that exited meanwhile is dropped.
    func checkDrain(_ app: AppID, now: Instant) {
        guard let managed = self.apps[app], let drain = managed.drain else { return }
        guard let child = managed.child, !child.hasExited else {
            self.apps[app]?.drain = nil
            return
        }
        let decision = drain.observed(
            unreadBytes: Self.unreadBytes(child),
            threadRunning: Self.hasRunningThread(child.pid),
            now: now
        )
        switch decision {
        case .wait:
            return
        case .drained(let after):
            self.logger.debug("channel read before suspension", metadata: ["app": "\(app)", "after": "\(after)"])
        case .timedOut(let waited, let unread) where unread > 0:
            self.logger.info(
                "suspending an app that has not read its channel",
                metadata: ["app": "\(app)", "waited": "\(waited)", "unread": .stringConvertible(unread)]
            )
        case .timedOut(let waited, _):
            self.logger.debug(
                "channel read, app still running at suspension",
                metadata: ["app": "\(app)", "waited": "\(waited)"]
            )
        }
        self.apps[app]?.drain = nil
        self.setSuspended(true, app)
    }

    /// What the child has not read of what was written to it: libuv's queue plus the socket's (SIOCOUTQ).
    private static func unreadBytes(_ child: ChildProcess) -> Int {
        guard child.isChannelOpen else { return 0 }
        var fd: uv_os_fd_t = -1
        guard uv_fileno(runway_pipe_as_handle(child.channel), &fd) == 0 else { return child.channelQueuedBytes }
        return child.channelQueuedBytes + max(0, Int(runway_socket_unread_by_peer(fd)))
    }

    /// True when a thread of `pid` is running or runnable (`R` in `/proc/PID/task/TID/stat`).
    private static func hasRunningThread(_ pid: Int32) -> Bool {
        SystemFiles.entries(of: "/proc/\(pid)/task").contains { tid in
            SystemFiles.read("/proc/\(pid)/task/\(tid)/stat").flatMap(ProcFS.parseStat)?.state == "R"
        }
    }
}
