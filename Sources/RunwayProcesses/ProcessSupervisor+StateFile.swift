import CLibUV
@_spi(Processes) import RunwayCore

// What the state file lists (`StateFileRecorder`, which owns the file and its flush timer): every tracked,
// left-behind and unattributed process. Loop thread only.
extension ProcessSupervisor {
    /// Run once, by `init`: ends what a dead predecessor left, then writes the file (which removes it when nothing
    /// is listed). Without a usable file the supervisor keeps none.
    func takeOverStateFile() {
        self.stateRecorder.onFlushDue = { [unowned self] in self.flushState() }
        guard self.stateRecorder.keepsFile else { return }
        self.stateRecorder.takeOver(
            trackedProcessLimit: self.options.trackedProcessLimit,
            orphanReapTimeout: self.options.orphanReapTimeout
        )
        self.flushState()
    }

    /// The monotonic clock, for the waits of the start and the close (`KilledProcessWait`), during which no loop turn
    /// runs.
    static func monotonicNow() -> Instant {
        Instant(nanosecondsSinceOrigin: runway_monotonic_nanoseconds())
    }

    /// Schedules a rewrite of the state file for the next loop turn, or a spacing after the last write during a burst
    /// (`StateFlushSchedule`; one write however many changes).
    func markStateDirty() {
        self.stateRecorder.changed(closed: self.closed, now: self.loop.turnNow)
    }

    /// Writes every tracked, left-behind and unattributed process to the state file now; with none, removes
    /// the file if this process wrote it.
    func flushState() {
        guard self.stateRecorder.flushStarted(now: self.loop.turnNow) else { return }
        self.resolvePendingIdentities()  // Every main process is listed, even one launched in this turn.
        self.stateRecorder.write(self.stateEntries())
    }

    /// At close: removes the file when nothing this supervisor tracked remains, else rewrites it with what
    /// remains, for the next start to end.
    func releaseStateFile() {
        guard self.stateRecorder.keepsFile else { return }
        self.resolvePendingIdentities()
        self.stateRecorder.release(self.stateEntries())
    }

    private func stateEntries() -> [ProcessStateSnapshot.Entry] {
        var entries: [ProcessStateSnapshot.Entry] = []
        for (app, managed) in self.apps {
            entries += managed.tracked.map { .init(process: $0, app: app.bundleIdentifier) }
        }
        for orphan in self.leftovers.orphans {
            guard let startTime = orphan.startTime else { continue }
            let process = ProcessIdentity(pid: orphan.pid, startTime: startTime)
            entries.append(.init(process: process, app: orphan.app.bundleIdentifier))
        }
        entries += self.processScan.unattributed.map { .init(process: $0, app: "") }
        return entries
    }
}
