// Outstanding background tasks of every app, keyed by id.
//
// Ids are issued in increasing, contiguous order (an id is consumed only when a task begins), so the table is
// an array indexed by `id - firstID`: beginning a task is an append and ending one marks its entry ended, both
// O(1) with no hashing and no allocation per task beyond amortised array growth. When most of the array is
// ended (fewer than a quarter of its live part outstanding), the outstanding entries move to a small dictionary,
// so memory stays proportional to outstanding tasks even when one long-lived task sits among millions of short
// ones.
//
// The move is incremental: once started, every insert and remove migrates at most `migrationStep` entries from
// the front of the array, so no single call pauses for long (moving 25,000 survivors at once took several
// milliseconds and showed as the terminations' tail in `runway bench`). The dictionary is sized for every
// survivor when a migration starts, so the steps never pay for a rehash. Entries before `head` have been migrated;
// the array is trimmed when the migration reaches the end it had when it started.
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

    /// Entries migrated per insert or remove while a migration runs: bounds the work of one call.
    static let migrationStep = 32

    private var entries: [Entry] = []
    /// The id of `entries[0]`.
    private var firstID: UInt64 = 1
    /// Entries before `head` have been migrated (moved to `older` if outstanding) and are dead here.
    private var head = 0
    /// While a migration runs: the array index it migrates up to (exclusive); nil otherwise.
    private var migrationEnd: Int?
    /// Outstanding entries in `entries[head...]`.
    private var outstandingInArray = 0
    /// Outstanding tasks older than `firstID + head`, moved out by migration.
    private var older: [BackgroundTaskID: Entry] = [:]

    init() {
        // Allocates the dictionary's storage now, so that the first migration does not pay the one-time
        // instantiation of its generic storage type (a search of the conformance tables, about 250 µs measured
        // with `perf` on the loop thread in the middle of the deadlines of LatenessComparison).
        self.older.reserveCapacity(1)
    }

    /// Outstanding tasks of every app.
    var count: Int { self.outstandingInArray + self.older.count }

    /// Entries a running migration has still to visit (0 when none runs). For tests.
    var migrationBacklog: Int { self.migrationEnd.map { $0 - self.head } ?? 0 }

    /// Records a new task. `id` must be the next id: one past the last inserted.
    mutating func insert(_ id: BackgroundTaskID, name: String, began: Instant, app: Int) {
        precondition(
            id.rawValue == self.firstID + UInt64(self.entries.count),
            "Task ids must be contiguous: id=\(id); expected=\(self.firstID + UInt64(self.entries.count))"
        )
        self.entries.append(Entry(name: name, began: began, app: Int32(app)))
        self.outstandingInArray += 1
        self.migrateStep()
    }

    /// The outstanding task with this id, or nil if it ended or was never issued.
    func entry(_ id: BackgroundTaskID) -> Entry? {
        if let index = self.arrayIndex(id) {
            let entry = self.entries[index]
            return entry.app >= 0 ? entry : nil
        }
        return id.rawValue < self.firstID + UInt64(self.head) ? self.older[id] : nil
    }

    /// The index of the app that holds the task, or nil.
    func owner(of id: BackgroundTaskID) -> Int? {
        self.entry(id).map { Int($0.app) }
    }

    /// Ends a task; returns false if it was not outstanding.
    @discardableResult
    mutating func remove(_ id: BackgroundTaskID) -> Bool {
        guard let index = self.arrayIndex(id) else {
            guard id.rawValue < self.firstID + UInt64(self.head) else { return false }
            let removed = self.older.removeValue(forKey: id) != nil
            if removed { self.migrateStep() }
            return removed
        }
        guard self.entries[index].app >= 0 else { return false }
        self.entries[index] = Entry(name: "", began: .origin, app: -1)
        self.outstandingInArray -= 1
        if self.migrationEnd == nil, self.outstandingInArray * 4 < self.entries.count - self.head {
            self.migrationEnd = self.entries.count
            // Room for every survivor at once, so that the steps never rehash a growing dictionary.
            self.older.reserveCapacity(self.older.count + self.outstandingInArray)
        }
        self.migrateStep()
        return true
    }

    /// The index in `entries` of a live (not yet migrated) id, or nil.
    private func arrayIndex(_ id: BackgroundTaskID) -> Int? {
        guard id.rawValue >= self.firstID + UInt64(self.head) else { return nil }
        let offset = id.rawValue - self.firstID
        return offset < UInt64(self.entries.count) ? Int(offset) : nil
    }

    /// Migrates up to `migrationStep` entries; when the migration reaches its end, drops the migrated prefix.
    /// O(`migrationStep`), plus, once per migration, moving the entries appended while it ran.
    private mutating func migrateStep() {
        guard let end = self.migrationEnd else { return }
        let stop = min(end, self.head + Self.migrationStep)
        while self.head < stop {
            let entry = self.entries[self.head]
            if entry.app >= 0 {
                self.older[BackgroundTaskID(rawValue: self.firstID + UInt64(self.head))] = entry
                self.outstandingInArray -= 1
            }
            self.head += 1
        }
        guard self.head == end else { return }
        self.migrationEnd = nil
        self.firstID += UInt64(end)
        self.head = 0
        if end == self.entries.count {
            // Keep a small buffer so that begin/end pairs do not allocate each time; give large ones back.
            self.entries.removeAll(keepingCapacity: self.entries.capacity <= 4_096)
        } else {
            self.entries.removeFirst(end)
        }
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

    /// One task of the list ended. Returns true when more than half of a long list has ended: then the caller
    /// compacts it with `compact(isOutstanding:)`.
    mutating func ended() -> Bool {
        self.count -= 1
        if self.count == 0 {
            self.ids.removeAll(keepingCapacity: self.ids.count <= 64)
            return false
        }
        return self.ids.count >= 64 && self.count * 2 < self.ids.count
    }

    /// Drops the ids that ended.
    mutating func compact(isOutstanding: (BackgroundTaskID) -> Bool) {
        self.ids.removeAll { !isOutstanding($0) }
    }

    mutating func removeAll() {
        self.ids = []
        self.count = 0
    }
}
