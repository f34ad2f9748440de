/// A first-in first-out queue: O(1) append and amortised O(1) `popFirst` (a head index over an array, compacted
/// when the consumed prefix is at least half the storage), so taking n queued elements costs O(n), not the
/// O(n²) of repeated `Array.removeFirst`. Not thread-safe.
struct FIFO<Element> {
    private var storage: [Element] = []
    private var head = 0

    init(_ elements: [Element] = []) {
        self.storage = elements
    }

    var isEmpty: Bool { self.head == self.storage.count }

    var count: Int { self.storage.count - self.head }

    /// The queued elements, oldest first.
    var elements: ArraySlice<Element> { self.storage[self.head...] }

    var first: Element? { self.isEmpty ? nil : self.storage[self.head] }

    /// Room for `count` queued elements without growing.
    mutating func reserveCapacity(_ count: Int) {
        self.storage.reserveCapacity(self.head + count)
    }

    mutating func append(_ element: Element) {
        self.storage.append(element)
    }

    mutating func append(contentsOf elements: some Sequence<Element>) {
        self.storage.append(contentsOf: elements)
    }

    mutating func popFirst() -> Element? {
        guard self.head < self.storage.count else { return nil }
        let element = self.storage[self.head]
        self.head += 1
        if self.head == self.storage.count {
            self.storage.removeAll(keepingCapacity: true)
            self.head = 0
        } else if self.head >= 64, self.head * 2 >= self.storage.count {
            self.storage.removeFirst(self.head)
            self.head = 0
        }
        return element
    }

    /// O(n); for rare operations (entering the foreground).
    mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) {
        self.storage = self.storage[self.head...].filter { !shouldBeRemoved($0) }
        self.head = 0
    }
}
