import CLibUV
import CRunwayProcess
@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The state file (`ProcessOptions.stateFile`): what a daemon killed with SIGKILL leaves is ended by the next
/// one before it serves. At start the supervisor reads the file: when its writer is gone (or it is from another
/// boot), every listed process whose start time still matches is SIGKILLed, stopped and frozen ones included,
/// and waited for; then the file is removed. While running, the file is rewritten (with this process as its
/// writer) whenever the tracked processes change, at most once per loop turn, and removed when none is left; a
/// close leaves the processes that could not be ended for the next start. Loop thread only.
extension ProcessSupervisor {
    /// Run once, by `init`: ends what a dead predecessor left, then removes its file. Without a usable file
    /// (not configured, directory refused, or owned by a live process) the supervisor keeps none.
    func takeOverStateFile() {
        guard let file = self.stateFile else { return }
        if let reason = file.prepareDirectory() {
            self.logger.warning(
                "no process state file: a restarted daemon will not find what this one leaves",
                metadata: ["stateFile": "\(file.path)", "reason": "\(reason)"]
            )
            self.stateFile = nil
            return
        }
        switch file.read() {
        case .failure(let error):
            self.logger.warning(
                "process state file ignored",
                metadata: ["stateFile": "\(file.path)", "reason": "\(error)"]
            )
        case .success(nil):
            break
        case .success(let snapshot?):
            if snapshot.bootID == ProcFS.bootID && snapshot.owner != self.ownIdentity && snapshot.owner.isAlive {
                self.logger.warning(
                    "process state file belongs to a live process; this supervisor keeps none",
                    metadata: ["stateFile": "\(file.path)", "owner": "\(snapshot.owner.pid)"]
                )
                self.stateFile = nil
                return
            }
            if snapshot.bootID == ProcFS.bootID { self.endLeftovers(of: snapshot) }
        }
        self.flushState()
    }

    /// Ends every process of `snapshot` that still exists (same pid and start time) and everything below it
    /// (what it started since the file was written): all are stopped, the tree is walked again for what forked
    /// meanwhile, then all are SIGKILLed; then waits up to `options.orphanReapTimeout` for them to be gone or
    /// zombies (reaping those that are children here).
    private func endLeftovers(of snapshot: ProcessStateSnapshot) {
        var apps: [ProcessIdentity: String] = [:]
        for entry in snapshot.entries { apps[entry.process] = entry.app }
        let limit = max(1, self.options.trackedProcessLimit) * max(1, snapshot.entries.count)
        let roots = snapshot.entries.map { (pid: $0.process.pid, startTime: Optional($0.process.startTime)) }
        let first = ProcessTree().descendants(of: roots, limit: limit).processes
        // The state each was in (T: stopped by its daemon; S after a freeze), for the log.
        var states: [ProcessIdentity: Character] = [:]
        for process in first { states[process] = ProcFS.stat(process.pid)?.state }
        for process in first { process.send(SIGSTOP) }
        let again = roots + first.map { (pid: $0.pid, startTime: Optional($0.startTime)) }
        var ended: [ProcessStateSnapshot.Entry] = []
        for process in ProcessTree().descendants(of: again, limit: limit).processes.sorted(by: { $0.pid < $1.pid }) {
            let state = states[process] ?? ProcFS.stat(process.pid)?.state ?? "?"
            guard process.send(SIGKILL) == 0 else { continue }
            let entry = ProcessStateSnapshot.Entry(process: process, app: apps[process] ?? "")
            ended.append(entry)
            self.logger.notice(
                "ended a process left by a previous daemon",
                metadata: [
                    "app": "\(entry.app.isEmpty ? "-" : entry.app)", "pid": "\(process.pid)", "state": "\(state)",
                    "listed": "\(apps[process] != nil)", "previousDaemon": "\(snapshot.owner.pid)",
                ]
            )
        }
        self.endedAtStart = ended
        let wait = KilledProcessWait(since: Self.monotonicNow(), timeout: self.options.orphanReapTimeout)
        var waiting = ended.map(\.process)
        waiting: while !waiting.isEmpty {
            waiting.removeAll { process in
                _ = runway_reap_nonblocking(process.pid)
                guard let stat = ProcFS.stat(process.pid), stat.startTime == process.startTime else { return true }
                return stat.state == "Z" || stat.state == "X"
            }
            switch wait.observed(remaining: waiting.count, now: Self.monotonicNow()) {
            case .done:
                break waiting
            case .lookAgain:
                usleep(1_000)
            case .giveUp:
                self.logger.warning(
                    "processes left by a previous daemon did not die in time",
                    metadata: ["pids": "\(waiting.map(\.pid))", "timeout": "\(self.options.orphanReapTimeout)"]
                )
                break waiting
            }
        }
        if !ended.isEmpty {
            self.logger.notice(
                "ended what a previous daemon left",
                metadata: ["count": "\(ended.count)", "previousDaemon": "\(snapshot.owner.pid)"]
            )
        }
    }

    /// The monotonic clock, for the waits of the start and the close (`KilledProcessWait`), during which no loop turn
    /// runs.
    static func monotonicNow() -> Instant {
        Instant(nanosecondsSinceOrigin: runway_monotonic_nanoseconds())
    }

    /// Schedules a rewrite of the state file for the next loop turn, as `stateFlush` decides (one write however many
    /// changes).
    func markStateDirty() {
        guard self.stateFlush.changed(keepsFile: self.stateFile != nil, closed: self.closed) else { return }
        uv_timer_start(
            self.flushTimer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<ProcessSupervisor>.fromOpaque(data).takeUnretainedValue().flushState()
            },
            0,
            0
        )
    }

    /// Writes every tracked, left-behind and unattributed process to the state file now; with none, removes
    /// the file if this process wrote it (so a daemon killed with nothing running leaves no file behind).
    func flushState() {
        self.stateFlush.flushed()
        guard let file = self.stateFile else { return }
        self.resolvePendingIdentities()  // Every main process is listed, even one launched in this turn.
        let snapshot = self.stateSnapshot()
        guard !snapshot.entries.isEmpty else {
            self.removeStateFileIfOwn(file)
            return
        }
        let status = file.write(snapshot)
        if status != 0 {
            self.logger.warning(
                "cannot write the process state file",
                metadata: ["stateFile": "\(file.path)", "errno": "\(status)"]
            )
        }
    }

    /// At close: removes the file when nothing this supervisor tracked remains, else rewrites it with what
    /// remains, for the next start to end.
    func releaseStateFile() {
        guard let file = self.stateFile else { return }
        self.resolvePendingIdentities()
        let snapshot = self.stateSnapshot()
        let remaining = snapshot.entries.filter { $0.process.isAlive }
        if remaining.isEmpty {
            self.removeStateFileIfOwn(file)
        } else {
            file.write(ProcessStateSnapshot(bootID: snapshot.bootID, owner: snapshot.owner, entries: remaining))
        }
    }

    /// Removes the file when this process or a dead one wrote it: a second daemon started on the same socket,
    /// which then fails to serve, must not remove the live one's file, and a file that was refused stays for
    /// the operator to see (a later write replaces it).
    private func removeStateFileIfOwn(_ file: ProcessStateFile) {
        guard case .success(let snapshot?) = file.read() else { return }
        if snapshot.owner == self.ownIdentity || !snapshot.owner.isAlive { file.remove() }
    }

    private func stateSnapshot() -> ProcessStateSnapshot {
        var entries: [ProcessStateSnapshot.Entry] = []
        for (app, managed) in self.apps {
            entries += managed.tracked.map { .init(process: $0, app: app.bundleIdentifier) }
        }
        for orphan in self.leftovers.orphans {
            guard let startTime = orphan.startTime else { continue }
            let process = ProcessIdentity(pid: orphan.pid, startTime: startTime)
            entries.append(.init(process: process, app: orphan.app.bundleIdentifier))
        }
        entries += self.unattributed.map { .init(process: $0, app: "") }
        return ProcessStateSnapshot(bootID: self.bootID, owner: self.ownIdentity, entries: entries)
    }
}
