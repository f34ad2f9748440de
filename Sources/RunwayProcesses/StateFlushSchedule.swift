/// When the process state file is rewritten (`ProcessSupervisor+StateFile.swift`): once on the loop turn after a
/// change, however many changes a turn makes (a batch of N launches, exits or scans costs one write), and never
/// when no file is kept or the supervisor is closed (the close writes it itself).
///
/// Pure: the caller owns the flush timer (a zero timeout, so the next loop turn) and performs the write; this value
/// only decides. Loop thread only.
struct StateFlushSchedule: Hashable, Sendable {
    /// True from a change until the write that covers it.
    private(set) var isDirty = false

    init() {}

    /// Something the file lists changed.
    ///
    /// - Returns: True when the flush timer must be armed for the next loop turn: a file is kept, the supervisor
    ///   is open, and no write is pending yet.
    mutating func changed(keepsFile: Bool, closed: Bool) -> Bool {
        guard keepsFile, !self.isDirty, !closed else { return false }
        self.isDirty = true
        return true
    }

    /// The file is being written: the next change arms a new write.
    mutating func flushed() {
        self.isDirty = false
    }
}
