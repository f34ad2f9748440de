import Foundation
import RunwayLocking

/// Saves the newest snapshot of a run history off the loop thread, one write at a time: a snapshot submitted while
/// a write is in progress or not yet due replaces the one waiting (the newest wins; snapshots are merged, never
/// queued), so what waits is at most one snapshot, whatever the rate of exits. A snapshot shares its storage with
/// the in-memory history (copy on write), so waiting costs the dictionary, not the output lines again. With
/// `submit(taking:)` the snapshot is taken only when the write starts: a burst of N exits (a stop with N apps
/// running) costs the loop N marks, not N copies of the history (each O(apps) once a write holds the storage).
///
/// Writes start at least `minimumInterval` apart, and at least `busyFactor` times the last write's duration apart:
/// a history of many apps is megabytes of JSON, and a crash loop would otherwise keep a CPU encoding it, which the
/// loop thread needs for deadlines. At most that long of history is lost if the daemon is killed; `flush` (the
/// daemon's stop) writes at once.
///
/// Thread-safe: the state is behind a mutex. `submit` may be called from any thread (the loop thread, after a run
/// ends) and never blocks on the file system; writes run on a serial queue of their own.
final class RunHistoryWriter: Sendable {
    /// Ended runs by bundle identifier, as saved (`RunHistoryFile.write`).
    typealias Snapshot = [String: [RunRecord]]
    /// Writes one snapshot; returns nil or why it could not.
    typealias Write = @Sendable (Snapshot) -> String?

    private struct State {
        /// Takes the newest snapshot not yet written (a value submitted, or what the history holds at the write).
        var pending: (@Sendable () -> Snapshot)?
        /// True from a `submit` that schedules a write until that write takes the pending snapshot.
        var scheduled = false
        /// When the last write started, and how long it took.
        var lastStart: DispatchTime?
        var lastDuration: UInt64 = 0
        /// Writes done since the start.
        var writes = 0
        /// Snapshots replaced by a newer one before they were written.
        var merged = 0
        /// Why the last write failed, or nil.
        var problem: String?
    }

    private let state = RunwayLock(State())
    private let queue = DispatchQueue(label: "runway-run-history")
    private let write: Write
    private let report: @Sendable (String) -> Void
    let minimumInterval: Duration
    let busyFactor: UInt64

    /// - Parameters:
    ///   - write: Writes one snapshot (`RunHistoryFile.write`); called on the writer's queue only.
    ///   - report: Told each new problem once, when it differs from the last one (not every write of a storm).
    ///   - minimumInterval: The least time from one write's start to the next one's. Default 1 s.
    ///   - busyFactor: The least time between write starts, in durations of the last write: the writer is busy at
    ///     most 1 / this of the time. Default 10.
    init(
        write: @escaping Write,
        report: @escaping @Sendable (String) -> Void = { _ in },
        minimumInterval: Duration = .seconds(1),
        busyFactor: UInt64 = 10
    ) {
        self.write = write
        self.report = report
        self.minimumInterval = minimumInterval
        self.busyFactor = busyFactor
    }

    /// Makes `snapshot` the next one written, replacing any snapshot still waiting, and schedules its write if
    /// none is scheduled. Returns at once.
    func submit(_ snapshot: Snapshot) {
        self.schedule { snapshot }
    }

    /// Marks the history changed: `take` is called once, on the writer's queue, when the next write starts, and
    /// returns the snapshot to write (the newest at that moment). Replaces a source or snapshot still waiting and
    /// schedules the write if none is scheduled. Returns at once, without copying anything.
    func submit(taking take: @escaping @Sendable () -> Snapshot) {
        self.schedule(take)
    }

    private func schedule(_ pending: @escaping @Sendable () -> Snapshot) {
        let due = self.state.withLock { state -> DispatchTime? in
            if state.pending != nil { state.merged += 1 }
            state.pending = pending
            guard !state.scheduled else { return nil }
            state.scheduled = true
            guard let last = state.lastStart else { return .now() }
            let spacing = max(
                UInt64(self.minimumInterval.components.seconds) * 1_000_000_000
                    + UInt64(self.minimumInterval.components.attoseconds / 1_000_000_000),
                state.lastDuration.multipliedReportingOverflow(by: self.busyFactor).partialValue
            )
            return DispatchTime(uptimeNanoseconds: last.uptimeNanoseconds + spacing)
        }
        guard let due else { return }
        self.queue.asyncAfter(deadline: due) { self.writePending() }
    }

    /// Waits for the write in progress, if any, then writes the snapshot waiting, if any, at once: at most two
    /// writes, the second one the newest state. For the daemon's stop, after the last run ended.
    func flush() {
        self.queue.sync { self.writePending() }
    }

    /// Writes done so far, and snapshots merged into a newer one before they were written.
    var counts: (writes: Int, merged: Int) {
        self.state.withLock { ($0.writes, $0.merged) }
    }

    /// Why the last write failed, or nil.
    var problem: String? { self.state.withLock { $0.problem } }

    /// Writer queue: writes the pending snapshot, if any. A snapshot submitted during the write schedules the
    /// next write, spaced from this one's start.
    private func writePending() {
        let start = DispatchTime.now()
        let take = self.state.withLock { state -> (@Sendable () -> Snapshot)? in
            guard let pending = state.pending else { return nil }
            state.pending = nil
            state.scheduled = false
            state.lastStart = start
            return pending
        }
        guard let take else { return }
        let next = take()
        // Only ended runs are saved (a run still going when the daemon dies has no end to show); filtered here,
        // off the loop thread, as the filter reads every run of every app.
        let ended = next.mapValues { $0.filter { $0.ended != nil } }.filter { !$0.value.isEmpty }
        let problem = self.write(ended)
        let duration = DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds
        let changed = self.state.withLock { state -> Bool in
            state.writes += 1
            state.lastDuration = duration
            defer { state.problem = problem }
            return state.problem != problem
        }
        if changed, let problem { self.report(problem) }
    }
}
