// A priority queue of deadlines with O(log n) insert, O(log n) cancel by handle, and O(1) peek.
//
// Design (like libuv's timer heap, plus handles): entries live in a slab (an array of slots reused through
// a free list); a binary min-heap holds slot numbers ordered by `(deadline, sequence)`. Each slot remembers
// its heap position, so `cancel` removes from the middle of the heap with one sift instead of a scan.
// A handle is the slot number plus the slot's generation, so a stale handle (cancelled or fired) is
// recognised and ignored instead of cancelling whatever reused the slot.
//
// Invariants (checked by `checkInvariants()` in tests):
// - `heap[i]` names a slot whose `heapIndex == i`; a free slot has `heapIndex == -1`.
// - For every i > 0, `key(heap[(i - 1) / 2]) <= key(heap[i])`.
// - Sequences strictly increase with each `insert`, so equal deadlines pop in insertion order (B10).

/// A handle to one armed deadline in a `DeadlineQueue`.
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
/// - Note: Equal deadlines are served in the order they were inserted (stable FIFO).
public struct DeadlineQueue<Payload> {
    @usableFromInline struct Slot {
        @usableFromInline var deadline: Instant
        @usableFromInline var sequence: UInt64
        @usableFromInline var heapIndex: Int32
        @usableFromInline var generation: UInt32
        @usableFromInline var payload: Payload?

        @inlinable init(deadline: Instant, sequence: UInt64, heapIndex: Int32, generation: UInt32, payload: Payload?) {
            self.deadline = deadline
            self.sequence = sequence
            self.heapIndex = heapIndex
            self.generation = generation
            self.payload = payload
        }
    }

    // `@usableFromInline` and `@inlinable` below let callers in other modules specialise the queue for their
    // payload type; unspecialised generic code was measured 7-15x slower from outside the module.
    @usableFromInline var slots: [Slot] = []
    @usableFromInline var freeSlots: [UInt32] = []
    @usableFromInline var heap: [UInt32] = []
    @usableFromInline var nextSequence: UInt64 = 0

    @inlinable public init() {}

    /// Number of armed deadlines.
    @inlinable public var count: Int { self.heap.count }

    @inlinable public var isEmpty: Bool { self.heap.isEmpty }

    /// The earliest deadline, or nil when empty. O(1).
    @inlinable public var earliestDeadline: Instant? {
        guard let top = self.heap.first else { return nil }
        return self.slots[Int(top)].deadline
    }

    /// Arms `payload` at `deadline`. O(log n).
    @inlinable public mutating func insert(_ payload: Payload, at deadline: Instant) -> DeadlineHandle {
        let slotNumber: UInt32
        if let reused = self.freeSlots.popLast() {
            slotNumber = reused
            self.slots[Int(slotNumber)].deadline = deadline
            self.slots[Int(slotNumber)].sequence = self.nextSequence
            self.slots[Int(slotNumber)].payload = payload
        } else {
            precondition(self.slots.count < Int(UInt32.max), "DeadlineQueue is full: \(self.slots.count) slots")
            slotNumber = UInt32(self.slots.count)
            self.slots.append(
                Slot(deadline: deadline, sequence: self.nextSequence, heapIndex: -1, generation: 0, payload: payload)
            )
        }
        self.nextSequence += 1
        let position = self.heap.count
        self.heap.append(slotNumber)
        self.slots[Int(slotNumber)].heapIndex = Int32(position)
        self.siftUp(from: position)
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
        self.contains(handle) ? self.slots[Int(handle.slot)].deadline : nil
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
        public var deadline: Instant
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
        guard let top = self.heap.first else { return nil }
        let slot = self.slots[Int(top)]
        guard slot.deadline <= now else { return nil }
        let handle = DeadlineHandle(slot: top, generation: slot.generation)
        guard let payload = self.remove(atHeapIndex: 0) else {
            preconditionFailure("Expected a payload in slot \(top) at the top of the heap")
        }
        return DueEntry(deadline: slot.deadline, payload: payload, handle: handle)
    }

    /// Removes every entry with a deadline at or before `now`, in `(deadline, insertion)` order. Entries
    /// inserted while the caller handles the result are not included (they wait for the next call).
    @inlinable public mutating func drainDue(now: Instant) -> [DueEntry] {
        var due: [DueEntry] = []
        while let entry = self.popDue(now: now) {
            due.append(entry)
        }
        return due
    }

    // MARK: Heap plumbing

    @inlinable internal mutating func remove(atHeapIndex index: Int) -> Payload? {
        let slotNumber = Int(self.heap[index])
        let payload = self.slots[slotNumber].payload
        let last = self.heap.count - 1
        if index != last {
            self.heap.swapAt(index, last)
            self.slots[Int(self.heap[index])].heapIndex = Int32(index)
        }
        self.heap.removeLast()
        self.slots[slotNumber].heapIndex = -1
        self.slots[slotNumber].payload = nil
        self.slots[slotNumber].generation &+= 1
        self.freeSlots.append(UInt32(slotNumber))
        if index < self.heap.count {
            self.siftDown(from: index)
            self.siftUp(from: index)
        }
        return payload
    }

    @inlinable internal func precedes(_ a: UInt32, _ b: UInt32) -> Bool {
        let left = self.slots[Int(a)]
        let right = self.slots[Int(b)]
        if left.deadline != right.deadline { return left.deadline < right.deadline }
        return left.sequence < right.sequence
    }

    @inlinable internal mutating func siftUp(from start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard self.precedes(self.heap[index], self.heap[parent]) else { break }
            self.swapHeap(index, parent)
            index = parent
        }
    }

    @inlinable internal mutating func siftDown(from start: Int) {
        var index = start
        let count = self.heap.count
        while true {
            let left = 2 * index + 1
            guard left < count else { return }
            var smallest = left
            let right = left + 1
            if right < count, self.precedes(self.heap[right], self.heap[left]) { smallest = right }
            guard self.precedes(self.heap[smallest], self.heap[index]) else { return }
            self.swapHeap(index, smallest)
            index = smallest
        }
    }

    @inlinable internal mutating func swapHeap(_ i: Int, _ j: Int) {
        self.heap.swapAt(i, j)
        self.slots[Int(self.heap[i])].heapIndex = Int32(i)
        self.slots[Int(self.heap[j])].heapIndex = Int32(j)
    }

    /// Traps with the offending values if an invariant of the header comment is broken. O(n); for tests.
    package func checkInvariants() {
        for (index, slotNumber) in self.heap.enumerated() {
            let slot = self.slots[Int(slotNumber)]
            precondition(slot.heapIndex == Int32(index), "slot=\(slotNumber); heapIndex=\(slot.heapIndex); index=\(index)")
            precondition(slot.payload != nil, "slot=\(slotNumber) is in the heap without a payload")
            if index > 0 {
                let parent = self.heap[(index - 1) / 2]
                precondition(!self.precedes(slotNumber, parent), "heap order broken at index=\(index)")
            }
        }
        let free = self.slots.indices.filter { self.slots[$0].heapIndex < 0 }.count
        precondition(free == self.freeSlots.count, "free=\(free); freeList=\(self.freeSlots.count)")
    }
}

extension DeadlineQueue: Sendable where Payload: Sendable {}
extension DeadlineQueue.Slot: Sendable where Payload: Sendable {}
extension DeadlineQueue.DueEntry: Sendable where Payload: Sendable {}
