// Outstanding background tasks of every app, keyed by id.
//
// Ids are issued in increasing, contiguous order (an id is consumed only when a task begins), so the table is
// an array indexed by `id - firstID`: beginning a task is an append and ending one marks its entry ended, both
// O(1) with no hashing and no allocation per task beyond amortised array growth. When most of the array is
// ended (fewer than a quarter of its entries outstanding), the few outstanding entries move to a small
// dictionary and the array starts over, so memory stays proportional to outstanding tasks even when one
// long-lived task sits among millions of short ones.
//
// An entry is 32 bytes (name 16, began 8, app 4, padding). Per outstanding task the scheduler also keeps its
// id (8 bytes) in the app's begin-order list: about 40 bytes in all, 80 at the peak of an array doubling.

/// Storage for outstanding tasks. Not thread-safe; owned by `Scheduler`.
struct TaskTable {
    struct Entry {
        var name: String
        var began: Instant
        /// Index of the owning app in `Scheduler.apps`; -1 once the task ended.
        var app: Int32
    }

    private var entries: [Entry] = []
    /// The id of `entries[0]`.
    private var firstID: UInt64 = 1
    /// Outstanding entries in `entries`.
    private var outstandingInArray = 0
    /// Outstanding tasks older than `firstID`, moved out by compaction.
    private var older: [BackgroundTaskID: Entry] = [:]

    /// Outstanding tasks of every app.
    var count: Int { self.outstandingInArray + self.older.count }

    /// Records a new task. `id` must be the next id: one past the last inserted.
    mutating func insert(_ id: BackgroundTaskID, name: String, began: Instant, app: Int) {
        precondition(
            id.rawValue == self.firstID + UInt64(self.entries.count),
            "Task ids must be contiguous: id=\(id); expected=\(self.firstID + UInt64(self.entries.count))"
        )
        self.entries.append(Entry(name: name, began: began, app: Int32(app)))
        self.outstandingInArray += 1
    }

    /// The outstanding task with this id, or nil if it ended or was never issued.
    func entry(_ id: BackgroundTaskID) -> Entry? {
        if id.rawValue >= self.firstID {
            let offset = id.rawValue - self.firstID
            guard offset < UInt64(self.entries.count) else { return nil }
            let entry = self.entries[Int(offset)]
            return entry.app >= 0 ? entry : nil
        }
        return self.older[id]
    }

    /// The index of the app that holds the task, or nil.
    func owner(of id: BackgroundTaskID) -> Int? {
        self.entry(id).map { Int($0.app) }
    }

    /// Ends a task; returns false if it was not outstanding.
    @discardableResult
    mutating func remove(_ id: BackgroundTaskID) -> Bool {
        if id.rawValue < self.firstID {
            return self.older.removeValue(forKey: id) != nil
        }
        let offset = id.rawValue - self.firstID
        guard offset < UInt64(self.entries.count), self.entries[Int(offset)].app >= 0 else { return false }
        self.entries[Int(offset)] = Entry(name: "", began: .origin, app: -1)
        self.outstandingInArray -= 1
        self.compactIfSparse()
        return true
    }

    /// Moves the outstanding entries out once fewer than a quarter of the array is outstanding. Each
    /// compaction moves at most a quarter of the entries that were removed since the last one: O(1) amortised.
    private mutating func compactIfSparse() {
        guard self.outstandingInArray * 4 < self.entries.count else { return }
        if self.outstandingInArray > 0 {
            for (offset, entry) in self.entries.enumerated() where entry.app >= 0 {
                self.older[BackgroundTaskID(rawValue: self.firstID + UInt64(offset))] = entry
            }
        }
        self.firstID += UInt64(self.entries.count)
        // Keep a small buffer so that begin/end pairs do not allocate each time; give large ones back.
        self.entries.removeAll(keepingCapacity: self.entries.capacity <= 4_096)
        self.outstandingInArray = 0
    }
}

/// One app's outstanding task ids in begin order. Ended ids are dropped lazily: `ids` may still hold some,
/// and the list is compacted when more than half of it has ended.
struct AppTasks {
    private(set) var ids: [BackgroundTaskID] = []
    /// Outstanding tasks of this app.
    private(set) var count = 0

    var isEmpty: Bool { self.count == 0 }

    mutating func began(_ id: BackgroundTaskID) {
        self.ids.append(id)
        self.count += 1
    }

    mutating func ended(isOutstanding: (BackgroundTaskID) -> Bool) {
        self.count -= 1
        if self.count == 0 {
            self.ids.removeAll(keepingCapacity: self.ids.count <= 64)
        } else if self.ids.count >= 64, self.count * 2 < self.ids.count {
            self.ids.removeAll { !isOutstanding($0) }
        }
    }

    mutating func removeAll() {
        self.ids = []
        self.count = 0
    }
}
