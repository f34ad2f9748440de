// A priority queue of deadlines with O(log n) insert, O(log n) cancel by handle, and O(1) peek.
//
// Design (like libuv's timer heap, plus handles): entries live in a slab (an array of slots reused through
// a free list); a 4-ary min-heap holds `(deadline, sequence, slot number)` ordered by `(deadline, sequence)`.
// The keys sit in the heap itself, so a sift compares adjacent heap elements instead of following slot numbers
// to scattered slots (a cache miss per comparison in a large queue); a sift moves a hole and writes each
// moved element once. Four children per node (as in Go's runtime timers) halve the depth, and the four
// children of a node share two cache lines: on a cold cache, which is what a loop woken for one deadline
// has, a sift costs about half the misses of a binary heap's. Each slot remembers its heap position, so
// `cancel` removes from the middle of the heap with one sift instead of a scan. A handle is the slot number
// plus the slot's generation, so a stale handle (cancelled or fired) is recognised and ignored instead of
// cancelling whatever reused the slot.
//
// Invariants (checked by `checkInvariants()` in tests):
// - `heap[i].slot` names a slot whose `heapIndex == i`; a free slot has `heapIndex == -1`.
// - For every i > 0, `key(heap[(i - 1) / 4]) <= key(heap[i])`.
// - Sequences strictly increase with each `insert`, so equal deadlines pop in insertion order (B10).

/// A handle to one armed deadline in a `DeadlineQueue`. Benchmarks SPI, like the queue.
@_spi(Benchmarks)
public struct DeadlineHandle: Hashable, Sendable {
    @usableFromInline var slot: UInt32
    @usableFromInline var generation: UInt32

    @inlinable init(slot: UInt32, generation: UInt32) {
        self.slot = slot
        self.generation = generation
    }
}

/// A min-queue of `(deadline, payload)` entries. Not thread-safe: one owner mutates it.
///
/// Not part of the embedding API: the scheduler's own timer queue, visible outside this package only to
/// `@_spi(Benchmarks) import RunwayCore` (the Benchmarks package, `runway bench`).
///
/// - Note: Equal deadlines are served in the order they were inserted (stable FIFO).
@_spi(Benchmarks)
public struct DeadlineQueue<Payload> {
    /// Where an entry's payload lives, and where its key is in the heap.
    @usableFromInline struct Slot {
        @usableFromInline var heapIndex: Int32
        @usableFromInline var generation: UInt32
        @usableFromInline var payload: Payload?

        @inlinable init(heapIndex: Int32, generation: UInt32, payload: Payload?) {
            self.heapIndex = heapIndex
            self.generation = generation
            self.payload = payload
        }
    }

    /// One heap element: the ordering key and the slot it belongs to.
    @usableFromInline struct HeapEntry {
        @usableFromInline var deadline: Instant
        @usableFromInline var sequence: UInt64
        @usableFromInline var slot: UInt32

        @inlinable init(deadline: Instant, sequence: UInt64, slot: UInt32) {
            self.deadline = deadline
            self.sequence = sequence
            self.slot = slot
        }

        /// True when `self` is served before `other`: earlier deadline, or equal deadline and inserted first.
        @inlinable func precedes(_ other: HeapEntry) -> Bool {
            self.deadline != other.deadline ? self.deadline < other.deadline : self.sequence < other.sequence
        }
    }

    // `@usableFromInline` and `@inlinable` below let callers in other modules specialise the queue for their
    // payload type; unspecialised generic code was measured 7-15x slower from outside the module.
    @usableFromInline var slots: [Slot] = []
    @usableFromInline var freeSlots: [UInt32] = []
    @usableFromInline var heap: [HeapEntry] = []
    @usableFromInline var nextSequence: UInt64 = 0

    /// An empty queue.
    @inlinable public init() {}

    /// Number of armed deadlines.
    @inlinable public var count: Int { self.heap.count }

    /// True when no deadline is armed.
    @inlinable public var isEmpty: Bool { self.heap.isEmpty }

    /// The earliest deadline, or nil when empty. O(1).
    @inlinable public var earliestDeadline: Instant? {
        self.heap.first?.deadline
    }

    /// Arms `payload` at `deadline`. O(log n).
    @inlinable public mutating func insert(_ payload: Payload, at deadline: Instant) -> DeadlineHandle {
        let slotNumber: UInt32
        if let reused = self.freeSlots.popLast() {
            slotNumber = reused
            self.slots[Int(slotNumber)].payload = payload
        } else {
            precondition(self.slots.count < Int(UInt32.max), "DeadlineQueue is full: \(self.slots.count) slots")
            slotNumber = UInt32(self.slots.count)
            self.slots.append(Slot(heapIndex: -1, generation: 0, payload: payload))
        }
        let entry = HeapEntry(deadline: deadline, sequence: self.nextSequence, slot: slotNumber)
        self.nextSequence += 1
        self.heap.append(entry)
        self.siftUp(entry, from: self.heap.count - 1)
        return DeadlineHandle(slot: slotNumber, generation: self.slots[Int(slotNumber)].generation)
    }

    /// True while `handle` names an armed entry (not yet popped or cancelled).
    @inlinable public func contains(_ handle: DeadlineHandle) -> Bool {
        guard Int(handle.slot) < self.slots.count else { return false }
        let slot = self.slots[Int(handle.slot)]
        return slot.generation == handle.generation && slot.heapIndex >= 0
    }

    /// The deadline of an armed entry, or nil for a stale handle.
    @inlinable public func deadline(of handle: DeadlineHandle) -> Instant? {
        self.contains(handle) ? self.heap[Int(self.slots[Int(handle.slot)].heapIndex)].deadline : nil
    }

    /// Removes an armed entry and returns its payload; a stale handle returns nil and changes nothing.
    /// O(log n): the entry's heap position is stored, so there is no scan.
    @inlinable @discardableResult
    public mutating func cancel(_ handle: DeadlineHandle) -> Payload? {
        guard self.contains(handle) else { return nil }
        return self.remove(atHeapIndex: Int(self.slots[Int(handle.slot)].heapIndex))
    }

    /// One entry removed because it was due.
    public struct DueEntry {
        /// The deadline the entry was armed at (not when it was popped).
        public var deadline: Instant
        /// What was armed.
        public var payload: Payload
        /// The handle `insert` returned for this entry (now stale), so owners can tell which entry fired.
        public var handle: DeadlineHandle

        @inlinable init(deadline: Instant, payload: Payload, handle: DeadlineHandle) {
            self.deadline = deadline
            self.payload = payload
            self.handle = handle
        }
    }

    /// Removes and returns the earliest entry if its deadline is at or before `now`. O(log n).
    @inlinable public mutating func popDue(now: Instant) -> DueEntry? {
        guard let top = self.heap.first, top.deadline <= now else { return nil }
        let handle = DeadlineHandle(slot: top.slot, generation: self.slots[Int(top.slot)].generation)
        guard let payload = self.remove(atHeapIndex: 0) else {
            preconditionFailure("Expected a payload in slot \(top.slot) at the top of the heap")
        }
        return DueEntry(deadline: top.deadline, payload: payload, handle: handle)
    }

    /// Removes every entry with a deadline at or before `now`, in `(deadline, insertion)` order. Entries
    /// inserted while the caller handles the result are not included (they wait for the next call).
    @inlinable public mutating func drainDue(now: Instant) -> [DueEntry] {
        var due: [DueEntry] = []
        self.drainDue(now: now, into: &due)
        return due
    }

    /// `drainDue(now:)` appending to `due`, so that a caller that keeps the array allocates nothing once it has grown.
    @inlinable public mutating func drainDue(now: Instant, into due: inout [DueEntry]) {
        while let entry = self.popDue(now: now) {
            due.append(entry)
        }
    }

    // MARK: Heap plumbing

    @inlinable internal mutating func remove(atHeapIndex index: Int) -> Payload? {
        let slotNumber = Int(self.heap[index].slot)
        let payload = self.slots[slotNumber].payload
        let last = self.heap.removeLast()
        self.slots[slotNumber].heapIndex = -1
        self.slots[slotNumber].payload = nil
        self.slots[slotNumber].generation &+= 1
        self.freeSlots.append(UInt32(slotNumber))
        if index < self.heap.count {
            // The last element fills the hole: down if a child precedes it, else up if it precedes the parent.
            if index > 0, last.precedes(self.heap[(index - 1) / Self.arity]) {
                self.siftUp(last, from: index)
            } else {
                self.siftDown(last, from: index)
            }
        }
        return payload
    }

    /// Children per heap node.
    @usableFromInline static var arity: Int { 4 }

    /// Puts `entry` at `index` (a hole), records the position in its slot.
    @inlinable internal mutating func place(_ entry: HeapEntry, at index: Int) {
        self.heap[index] = entry
        self.slots[Int(entry.slot)].heapIndex = Int32(index)
    }

    /// Moves the hole at `start` towards the root while `entry` precedes the parent, then places `entry`.
    @inlinable internal mutating func siftUp(_ entry: HeapEntry, from start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / Self.arity
            let parentEntry = self.heap[parent]
            guard entry.precedes(parentEntry) else { break }
            self.place(parentEntry, at: index)
            index = parent
        }
        self.place(entry, at: index)
    }

    /// Moves the hole at `start` towards the leaves while a child precedes `entry`, then places `entry`.
    @inlinable internal mutating func siftDown(_ entry: HeapEntry, from start: Int) {
        var index = start
        let count = self.heap.count
        while true {
            let first = Self.arity * index + 1
            guard first < count else { break }
            var smallest = first
            var child = self.heap[first]
            for other in (first + 1)..<min(first + Self.arity, count) {
                let candidate = self.heap[other]
                if candidate.precedes(child) {
                    smallest = other
                    child = candidate
                }
            }
            guard child.precedes(entry) else { break }
            self.place(child, at: index)
            index = smallest
        }
        self.place(entry, at: index)
    }

    /// Every armed entry in the order it would be served: `(deadline, insertion)`. O(n log n); for test
    /// harnesses.
    package var armedInOrder: [(handle: DeadlineHandle, deadline: Instant, payload: Payload)] {
        self.heap.sorted { $0.precedes($1) }.map { entry in
            let slot = self.slots[Int(entry.slot)]
            return (DeadlineHandle(slot: entry.slot, generation: slot.generation), entry.deadline, slot.payload!)
        }
    }

    /// Traps with the offending values if an invariant of the header comment is broken. O(n); for tests.
    package func checkInvariants() {
        for (index, entry) in self.heap.enumerated() {
            let slot = self.slots[Int(entry.slot)]
            precondition(
                slot.heapIndex == Int32(index),
                "slot=\(entry.slot); heapIndex=\(slot.heapIndex); index=\(index)"
            )
            precondition(slot.payload != nil, "slot=\(entry.slot) is in the heap without a payload")
            if index > 0 {
                let parent = self.heap[(index - 1) / Self.arity]
                precondition(!entry.precedes(parent), "heap order broken at index=\(index)")
            }
        }
        let free = self.slots.indices.filter { self.slots[$0].heapIndex < 0 }.count
        precondition(free == self.freeSlots.count, "free=\(free); freeList=\(self.freeSlots.count)")
    }
}

extension DeadlineQueue: Sendable where Payload: Sendable {}
extension DeadlineQueue.Slot: Sendable where Payload: Sendable {}
extension DeadlineQueue.HeapEntry: Sendable {}
extension DeadlineQueue.DueEntry: Sendable where Payload: Sendable {}
