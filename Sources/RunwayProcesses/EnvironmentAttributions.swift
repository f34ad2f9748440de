/// `RUNWAY_APP` as read in the environment of each child of this process that no app claimed
/// (`ProcessSupervisor+Tracking.swift`), by pid, with the start time it was read for; nil when it named none.
///
/// The rule: a process's environment is read once in its life (same pid and start time) and remembered, a missing
/// variable too: a child keeps its environment's size, and an environment read at every scan (every 1 ms while a
/// suspension is confirmed) let an app's children hold the loop thread. What the process writes over that memory
/// later is not seen, which takes nothing from a variable that is a hint. Only present children are remembered.
///
/// The reading is the caller's (`ProcFS.environmentValue`); this value only keeps and decides. Loop thread only.
struct EnvironmentAttributions {
    private var entries: [Int32: (startTime: UInt64, bundleIdentifier: String?)] = [:]

    init() {}

    /// What was read for `pid` started at `startTime`: nil when it was not read for that process (never, or for an
    /// earlier process of the same pid); `.some(nil)` when it named no app.
    func known(pid: Int32, startTime: UInt64) -> String?? {
        guard let entry = self.entries[pid], entry.startTime == startTime else { return nil }
        return .some(entry.bundleIdentifier)
    }

    /// The bundle identifier `pid`'s environment names: the remembered one, or `read()`'s, then remembered.
    ///
    /// - Returns: The name (nil: none) and whether `read` was called.
    mutating func named(pid: Int32, startTime: UInt64, read: () -> String?) -> (name: String?, didRead: Bool) {
        if let known = self.known(pid: pid, startTime: startTime) { return (known, false) }
        let name = read()
        self.entries[pid] = (startTime, name)
        return (name, true)
    }

    /// Forgets what was read of processes that are no longer among `children`.
    mutating func keep(children: [Int32]) {
        guard !self.entries.isEmpty else { return }
        let present = Set(children)
        self.entries = self.entries.filter { present.contains($0.key) }
    }

    var count: Int { self.entries.count }
}
