import Foundation
import Synchronization

/// Saves the newest snapshot of a run history off the loop thread, one write at a time: a snapshot submitted while
/// a write is in progress replaces the one waiting (the newest wins; snapshots are merged, never queued), so what
/// waits is at most one snapshot, whatever the rate of exits. A snapshot shares its storage with the in-memory
/// history (copy on write), so waiting costs the dictionary, not the output lines again.
///
/// Thread-safe: the state is behind a mutex. `submit` may be called from any thread (the loop thread, after a run
/// ends) and never blocks on the file system; writes run on a serial queue of their own.
final class RunHistoryWriter: Sendable {
    /// Ended runs by bundle identifier, as saved (`RunHistoryFile.write`).
    typealias Snapshot = [String: [RunRecord]]
    /// Writes one snapshot; returns nil or why it could not.
    typealias Write = @Sendable (Snapshot) -> String?

    private struct State {
        /// The newest snapshot not yet written.
        var pending: Snapshot?
        /// True from a `submit` that starts the drain until the drain finds nothing pending.
        var draining = false
        /// Writes done since the start.
        var writes = 0
        /// Snapshots replaced by a newer one before they were written.
        var merged = 0
        /// Why the last write failed, or nil.
        var problem: String?
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "runway-run-history")
    private let write: Write
    private let report: @Sendable (String) -> Void

    /// - Parameters:
    ///   - write: Writes one snapshot (`RunHistoryFile.write`); called on the writer's queue only.
    ///   - report: Told each new problem once, when it differs from the last one (not every write of a storm).
    init(write: @escaping Write, report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.write = write
        self.report = report
    }

    /// Makes `snapshot` the next one written, replacing any snapshot still waiting. Returns at once.
    func submit(_ snapshot: Snapshot) {
        let start = self.state.withLock { state -> Bool in
            if state.pending != nil { state.merged += 1 }
            state.pending = snapshot
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        if start { self.queue.async { self.drain() } }
    }

    /// Waits for the write in progress, if any, and the write of the snapshot waiting, if any: at most two writes,
    /// the second one the newest state. For the daemon's stop, after the last run ended.
    func flush() {
        self.queue.sync {}
    }

    /// Writes done so far, and snapshots merged into a newer one before they were written.
    var counts: (writes: Int, merged: Int) {
        self.state.withLock { ($0.writes, $0.merged) }
    }

    /// Why the last write failed, or nil.
    var problem: String? { self.state.withLock { $0.problem } }

    /// Writer queue: writes the pending snapshot until none is left.
    private func drain() {
        while true {
            let next = self.state.withLock { state -> Snapshot? in
                guard let pending = state.pending else {
                    state.draining = false
                    return nil
                }
                state.pending = nil
                return pending
            }
            guard let next else { return }
            // Only ended runs are saved (a run still going when the daemon dies has no end to show); filtered
            // here, off the loop thread, as the filter reads every run of every app.
            let ended = next.mapValues { $0.filter { $0.ended != nil } }.filter { !$0.value.isEmpty }
            let problem = self.write(ended)
            let changed = self.state.withLock { state -> Bool in
                state.writes += 1
                defer { state.problem = problem }
                return state.problem != problem
            }
            if changed, let problem { self.report(problem) }
        }
    }
}
