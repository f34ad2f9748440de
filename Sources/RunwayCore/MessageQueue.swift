/// A FIFO of messages for one app: O(1) append and amortised O(1) `popFirst` (a head index over an array,
/// compacted when the consumed prefix is at least half the storage), so delivering n queued messages costs
/// O(n), not the O(n²) of repeated `Array.removeFirst`.
struct MessageQueue {
    private var storage: [Message] = []
    private var head = 0

    init(_ messages: [Message] = []) {
        self.storage = messages
    }

    var isEmpty: Bool { self.head == self.storage.count }

    var count: Int { self.storage.count - self.head }

    /// The queued messages, oldest first.
    var elements: ArraySlice<Message> { self.storage[self.head...] }

    mutating func append(_ message: Message) {
        self.storage.append(message)
    }

    mutating func append(contentsOf messages: [Message]) {
        self.storage.append(contentsOf: messages)
    }

    mutating func popFirst() -> Message? {
        guard self.head < self.storage.count else { return nil }
        let message = self.storage[self.head]
        self.head += 1
        if self.head == self.storage.count {
            self.storage.removeAll(keepingCapacity: true)
            self.head = 0
        } else if self.head >= 64, self.head * 2 >= self.storage.count {
            self.storage.removeFirst(self.head)
            self.head = 0
        }
        return message
    }

    /// O(n); for rare operations (entering the foreground, coalescing a notification).
    mutating func removeAll(where shouldBeRemoved: (Message) -> Bool) {
        self.storage = self.storage[self.head...].filter { !shouldBeRemoved($0) }
        self.head = 0
    }

    func contains(_ message: Message) -> Bool {
        self.elements.contains(message)
    }
}
