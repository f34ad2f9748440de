import RunwayCore

/// The processes apps left behind (killed with their app, `ProcessSupervisor.Orphan`) that the supervisor waits to
/// reap once they are re-parented here, in the order they were left. Each is dropped when the caller sees it gone,
/// or forgotten by the rule of `LeftoverWait` (`ProcessOptions.orphanReapTimeout`). The reaping itself (a
/// non-blocking wait, a probe with signal 0) is the caller's: `sweep` asks it for each process. A stop waits until
/// this is empty (`ProcessSupervisor.finish`). Loop thread only.
struct LeftoverProcesses {
    private(set) var orphans: [ProcessSupervisor.Orphan] = []

    var isEmpty: Bool { self.orphans.isEmpty }
    var count: Int { self.orphans.count }
    var pids: [Int32] { self.orphans.map(\.pid) }

    /// A process was left behind and killed: it is waited for from its `since`.
    mutating func left(_ orphan: ProcessSupervisor.Orphan) {
        self.orphans.append(orphan)
    }

    /// One look at every process waited for, at `now`, in order: `isGone` reaps it if it can and says whether it is
    /// gone.
    ///
    /// - Returns: How many were dropped (gone or given up), and those given up, in order.
    mutating func sweep(
        now: Instant,
        timeout: TimeSpan,
        isGone: (ProcessSupervisor.Orphan) -> Bool
    ) -> (removed: Int, givenUp: [ProcessSupervisor.Orphan]) {
        let before = self.orphans.count
        var givenUp: [ProcessSupervisor.Orphan] = []
        self.orphans.removeAll { orphan in
            switch orphan.wait(timeout: timeout).observed(gone: isGone(orphan), now: now) {
            case .gone:
                return true
            case .wait:
                return false
            case .giveUp:
                givenUp.append(orphan)
                return true
            }
        }
        return (before - self.orphans.count, givenUp)
    }
}
