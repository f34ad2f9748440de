import CLibUV
import CRunwayProcess
import Logging
@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The state file (`ProcessOptions.stateFile`): what a daemon killed with SIGKILL leaves is ended by the next
/// one before it serves. At start (`takeOver`) the file is read: when its writer is gone (or it is from another
/// boot), every listed process whose start time still matches is SIGKILLed, stopped and frozen ones included,
/// and waited for. While running, the file is rewritten (with this process as its writer) whenever the tracked
/// processes change, at most once per loop turn and, during a burst, at most once per `StateFlushSchedule.spacing`
/// (`changed`, then `write` on the next turn or when the spacing has passed), and removed when none is left; a
/// close (`release`) leaves the processes that could not be ended for the next start.
///
/// Owns the file, its flush schedule and its flush timer; the supervisor supplies what the file lists (`write`,
/// `release`) and performs the write when `onFlushDue` is called.
///
/// Threading: loop thread only; not thread-safe. The flush timer's callback runs on the loop of `init`.
///
/// Time: the flush timer fires on the next loop turn, or `StateFlushSchedule.spacing` after the last write, and is
/// armed at most once per write. Only
/// `takeOver` reads the monotonic clock: it waits up to its `orphanReapTimeout` for the processes it killed to
/// die (`KilledProcessWait`), during which no loop turn runs.
final class StateFileRecorder {
    /// The file, nil when none is kept: not configured, its directory refused, or owned by a live process.
    private(set) var file: ProcessStateFile?
    /// Whether a write is pending for the next loop turn.
    private(set) var schedule = StateFlushSchedule()
    /// Writes (or removals) of the file by `write` (tests).
    private(set) var writeCount = 0
    /// Armed by `changed`; closed by `close`.
    private let flushTimer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    /// Called by the flush timer, on the loop turn after a change: the owner calls `write` with what it tracks.
    var onFlushDue: (() -> Void)?
    /// The processes a predecessor left that `takeOver` ended, until `takeEndedAtStart`.
    private var endedAtStart: [ProcessStateSnapshot.Entry] = []
    /// The writer recorded in the file, and the boot its start times count from.
    let ownIdentity: ProcessIdentity
    let bootID: String
    private let logger: Logger

    /// Starts the flush timer's handle on `loop`; reads nothing yet.
    ///
    /// - Parameters:
    ///   - path: The state file; nil keeps none.
    init(path: String?, loop: UnsafeMutablePointer<uv_loop_t>, logger: Logger) {
        self.file = path.map(ProcessStateFile.init(path:))
        self.ownIdentity = ProcessIdentity.current(getpid()) ?? ProcessIdentity(pid: getpid(), startTime: 0)
        self.bootID = ProcFS.bootID
        self.logger = logger
        let status = uv_timer_init(loop, self.flushTimer)
        precondition(status == 0, "uv_timer_init cannot fail on a valid loop: \(status)")
        self.flushTimer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    /// True while a file is kept.
    var keepsFile: Bool { self.file != nil }

    /// Run once, at start: ends what a dead predecessor left. Without a usable file (not configured, directory
    /// refused, or owned by a live process) none is kept from then on. The caller writes the file next.
    func takeOver(trackedProcessLimit: Int, orphanReapTimeout: TimeSpan) {
        guard let file = self.file else { return }
        if let reason = file.prepareDirectory() {
            self.logger.warning(
                "no process state file: a restarted daemon will not find what this one leaves",
                metadata: ["stateFile": "\(file.path)", "reason": "\(reason)"]
            )
            self.file = nil
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
                    metadata: ["stateFile": "\(file.path)", "owner": .stringConvertible(snapshot.owner.pid)]
                )
                self.file = nil
                return
            }
            if snapshot.bootID == ProcFS.bootID {
                self.endLeftovers(
                    of: snapshot,
                    trackedProcessLimit: trackedProcessLimit,
                    orphanReapTimeout: orphanReapTimeout
                )
            }
        }
    }

    /// Ends every process of `snapshot` that still exists (same pid and start time) and everything below it
    /// (what it started since the file was written): all are stopped, the tree is walked again for what forked
    /// meanwhile, then all are SIGKILLed; then waits up to `orphanReapTimeout` for them to be gone or zombies
    /// (reaping those that are children here).
    private func endLeftovers(
        of snapshot: ProcessStateSnapshot,
        trackedProcessLimit: Int,
        orphanReapTimeout: TimeSpan
    ) {
        var apps: [ProcessIdentity: String] = [:]
        for entry in snapshot.entries { apps[entry.process] = entry.app }
        let limit = max(1, trackedProcessLimit) * max(1, snapshot.entries.count)
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
                    "app": "\(entry.app.isEmpty ? "-" : entry.app)", "pid": .stringConvertible(process.pid),
                    "state": "\(state)",
                    "listed": .stringConvertible(apps[process] != nil),
                    "previousDaemon": .stringConvertible(snapshot.owner.pid),
                ]
            )
        }
        self.endedAtStart = ended
        let wait = KilledProcessWait(since: ProcessSupervisor.monotonicNow(), timeout: orphanReapTimeout)
        var waiting = ended.map(\.process)
        waiting: while !waiting.isEmpty {
            waiting.removeAll { process in
                _ = runway_reap_nonblocking(process.pid)
                guard let stat = ProcFS.stat(process.pid), stat.startTime == process.startTime else { return true }
                return stat.state == "Z" || stat.state == "X"
            }
            switch wait.observed(remaining: waiting.count, now: ProcessSupervisor.monotonicNow()) {
            case .done:
                break waiting
            case .lookAgain:
                usleep(1_000)
            case .giveUp:
                self.logger.warning(
                    "processes left by a previous daemon did not die in time",
                    metadata: [
                        "pids": .array(waiting.map(\.pid).map { .stringConvertible($0) }),
                        "timeout": "\(orphanReapTimeout)",
                    ]
                )
                break waiting
            }
        }
        if !ended.isEmpty {
            self.logger.notice(
                "ended what a previous daemon left",
                metadata: [
                    "count": .stringConvertible(ended.count), "previousDaemon": .stringConvertible(snapshot.owner.pid),
                ]
            )
        }
    }

    /// The processes `takeOver` ended, as `(pid, app)` (app "" when unattributed); a later call returns nothing.
    func takeEndedAtStart() -> [(pid: Int32, app: String)] {
        let ended = self.endedAtStart.map { (pid: $0.process.pid, app: $0.app) }
        self.endedAtStart = []
        return ended
    }

    /// Something the file lists changed at `now` (the loop turn's reading): arms the flush timer for the next loop
    /// turn, or for `StateFlushSchedule.spacing` after the last write, as `schedule` decides (one write however many
    /// changes).
    func changed(closed: Bool, now: Instant) {
        let timeout: UInt64
        switch self.schedule.changed(keepsFile: self.file != nil, closed: closed, now: now) {
        case nil: return
        case .nextTurn: timeout = 0
        case .after(let milliseconds): timeout = milliseconds
        }
        uv_timer_start(
            self.flushTimer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<StateFileRecorder>.fromOpaque(data).takeUnretainedValue().onFlushDue?()
            },
            timeout,
            0
        )
    }

    /// A write starts at `now`: the next change arms a new one.
    ///
    /// - Returns: True when a file is kept (the caller then calls `write`).
    func flushStarted(now: Instant) -> Bool {
        self.schedule.flushed(now: now)
        return self.file != nil
    }

    /// Writes `entries` to the file now; with none, removes the file if this process wrote it (so a daemon killed
    /// with nothing running leaves no file behind).
    func write(_ entries: [ProcessStateSnapshot.Entry]) {
        guard let file = self.file else { return }
        self.writeCount += 1
        guard !entries.isEmpty else {
            self.removeIfOwn(file)
            return
        }
        let status = file.write(ProcessStateSnapshot(bootID: self.bootID, owner: self.ownIdentity, entries: entries))
        if status != 0 {
            self.logger.warning(
                "cannot write the process state file",
                metadata: ["stateFile": "\(file.path)", "errno": .stringConvertible(status)]
            )
        }
    }

    /// At close: removes the file when none of `entries` is alive, else rewrites it with those that are, for the
    /// next start to end.
    func release(_ entries: [ProcessStateSnapshot.Entry]) {
        guard let file = self.file else { return }
        let remaining = entries.filter { $0.process.isAlive }
        if remaining.isEmpty {
            self.removeIfOwn(file)
        } else {
            file.write(ProcessStateSnapshot(bootID: self.bootID, owner: self.ownIdentity, entries: remaining))
        }
    }

    /// Removes the file when this process or a dead one wrote it: a second daemon started on the same socket,
    /// which then fails to serve, must not remove the live one's file, and a file that was refused stays for
    /// the operator to see (a later write replaces it).
    private func removeIfOwn(_ file: ProcessStateFile) {
        guard case .success(let snapshot?) = file.read() else { return }
        if snapshot.owner == self.ownIdentity || !snapshot.owner.isAlive { file.remove() }
    }

    /// Stops and closes the flush timer; its memory is freed by libuv's close callback. Called once, by the
    /// supervisor's `close`.
    func close() {
        uv_timer_stop(self.flushTimer)
        uv_close(runway_timer_as_handle(self.flushTimer)) { handle in handle?.deallocate() }
    }
}
