/// The one implementation of N1: host notifications waiting for one app, coalesced by name (the last payload
/// wins, the first position is kept) and bounded (posting a new name while `limit` names wait evicts the
/// oldest). A running app's queue lives in its `Outbox`, which delivers each notification at its slot among the
/// lifecycle messages; a suspended app keeps the same queue and gets it after `willEnterForeground`.
///
/// Every operation is O(1) amortised: names are hashed, and slots that were taken or evicted are dropped from
/// the front of the order lazily.
struct NotificationQueue {
    /// A notification's place in the delivery order. A slot is stale once its notification was taken or
    /// evicted; a name posted again after that gets a new slot.
    struct Slot: Hashable {
        var name: String
        var sequence: UInt64
    }

    private var waiting: [String: (payload: String, sequence: UInt64)] = [:]
    /// Slots in first-post order; stale ones are skipped.
    private var order = FIFO<Slot>()
    private var nextSequence: UInt64 = 0

    /// Names waiting.
    var count: Int { self.waiting.count }

    var isEmpty: Bool { self.waiting.isEmpty }

    /// Posts a notification.
    ///
    /// - Returns: `slot`, the new slot to queue when the name was not waiting (nil when it coalesced with a
    ///   waiting one), and `evicted`, the oldest name dropped to stay within `limit`.
    mutating func post(name: String, payload: String, limit: Int) -> (slot: Slot?, evicted: String?) {
        precondition(limit >= 1, "notification limit=\(limit)")
        if let waiting = self.waiting[name] {
            self.waiting[name] = (payload, waiting.sequence)
            return (nil, nil)
        }
        var evicted: String?
        if self.waiting.count >= limit, let oldest = self.popOldest() {
            self.waiting[oldest.name] = nil
            evicted = oldest.name
        }
        let slot = Slot(name: name, sequence: self.nextSequence)
        self.nextSequence += 1
        self.waiting[name] = (payload, slot.sequence)
        self.order.append(slot)
        return (slot, evicted)
    }

    /// Takes the notification of `slot` for delivery, or nil when the slot is stale.
    mutating func take(_ slot: Slot) -> Message? {
        guard let waiting = self.waiting[slot.name], waiting.sequence == slot.sequence else { return nil }
        self.waiting[slot.name] = nil
        self.dropStaleHead()
        return .notification(name: slot.name, payload: waiting.payload)
    }

    /// The live slots, oldest first. O(slots in the order).
    var slots: [Slot] { self.order.elements.filter(self.isLive) }

    /// The waiting notifications as messages, oldest first.
    var messages: [Message] {
        self.slots.compactMap { slot in
            self.waiting[slot.name].map { .notification(name: slot.name, payload: $0.payload) }
        }
    }

    private func isLive(_ slot: Slot) -> Bool { self.waiting[slot.name]?.sequence == slot.sequence }

    private mutating func popOldest() -> Slot? {
        self.dropStaleHead()
        return self.order.popFirst()
    }

    private mutating func dropStaleHead() {
        while let head = self.order.first, !self.isLive(head) { _ = self.order.popFirst() }
    }
}
