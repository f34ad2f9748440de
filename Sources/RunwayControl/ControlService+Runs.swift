import Runway
@_spi(Driver) import RunwayCore

// What `status` shows of restarts and runs beyond the core's snapshot: times relative to now, wall times, and
// the run history (RunHistory.swift).

extension ControlService {
    /// Adds the age of the current run, the pending restart's delay and wall time, and with `history` each app's
    /// history to a `status` reply whose apps are `statuses`, in the same order. Loop thread. A history can be
    /// `RunHistoryLimit` x 127 KiB per app to encode (off the loop) and send, so it is added only when asked for.
    func addRuns(to reply: inout ControlReply, statuses: [AppStatus], history: Bool) {
        let now = self.scheduler.now()
        let clock = WallClock(scheduler: self.scheduler)
        for (index, status) in statuses.enumerated() {
            guard reply.apps?.indices.contains(index) == true else { return }
            reply.apps?[index].ageSeconds = status.restart.runStarted.map { (now - $0).seconds }
            if let pending = status.restart.pending {
                reply.apps?[index].nextRestartInSeconds = max(0, (pending.at - now).seconds)
                reply.apps?[index].nextRestartWallTime = clock.text(at: pending.at)
            }
            if history { reply.apps?[index].history = self.history?.runs(of: status.app) }
        }
    }
}
