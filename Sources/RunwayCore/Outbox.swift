/// Messages for one running app, delivered one at a time (L2): lifecycle and expiration messages in the order
/// they were queued, with each waiting notification (N1) at the slot of its first post.
struct Outbox {
    enum Entry {
        case message(Message)
        case notification(NotificationQueue.Slot)
    }

    private(set) var pending = FIFO<Entry>()
    /// Notifications waiting for their slot (N1).
    private(set) var notifications = NotificationQueue()
    /// The message delivered and not yet returned.
    var inFlight: (token: MessageToken, message: Message)?

    init() {}

    /// An outbox that delivers `held` notifications between `before` and `after` (N1 on resume).
    init(before: [Message], held: NotificationQueue, after: [Message]) {
        self.pending.append(contentsOf: before.map(Entry.message))
        self.pending.append(contentsOf: held.slots.map(Entry.notification))
        self.pending.append(contentsOf: after.map(Entry.message))
        self.notifications = held
    }

    var isIdle: Bool { self.inFlight == nil && self.pending.isEmpty }

    /// True when `popNext()` may give a message to send now: nothing in flight and something queued.
    var mayDeliver: Bool { self.inFlight == nil && !self.pending.isEmpty }

    mutating func append(_ messages: [Message]) {
        self.pending.append(contentsOf: messages.map(Entry.message))
    }

    /// Queues a `backgroundTaskWillExpire` for each of `ids` that `isOutstanding`, in order (B4).
    mutating func appendExpirations(of ids: [BackgroundTaskID], where isOutstanding: (BackgroundTaskID) -> Bool) {
        self.pending.reserveCapacity(self.pending.count + ids.count)
        for id in ids where isOutstanding(id) {
            self.pending.append(.message(.backgroundTaskWillExpire(id)))
        }
    }

    /// Queues one message (no array of one).
    mutating func append(_ message: Message) {
        self.pending.append(.message(message))
    }

    /// Queues a notification or coalesces it with a waiting one; returns the name evicted to stay in `limit`.
    mutating func post(name: String, payload: String, limit: Int) -> String? {
        let (slot, evicted) = self.notifications.post(name: name, payload: payload, limit: limit)
        if let slot { self.pending.append(.notification(slot)) }
        return evicted
    }

    /// The next message to deliver, skipping stale notification slots; nil when nothing is queued.
    mutating func popNext() -> Message? {
        while let entry = self.pending.popFirst() {
            switch entry {
            case .message(let message): return message
            case .notification(let slot): if let message = self.notifications.take(slot) { return message }
            }
        }
        return nil
    }

    /// True when `message` is queued (not in flight). O(queued).
    func isQueued(_ message: Message) -> Bool {
        self.pending.elements.contains { entry in
            if case .message(message) = entry { return true }
            return false
        }
    }

    /// Drops queued expiration messages (B7: the clock stopped; handlers not yet called are not called).
    mutating func dropExpirationMessages() {
        self.pending.removeAll { entry in
            if case .message(.backgroundTaskWillExpire) = entry { return true }
            return false
        }
    }

    /// Replaces what is queued with `messages`; the one in flight, if any, still returns first (L2).
    mutating func replacePending(with messages: [Message]) {
        self.pending = FIFO(messages.map(Entry.message))
        self.notifications = NotificationQueue()
    }

    /// The notifications an app that stops taking messages keeps for after resume (N1): the one in flight (not
    /// returned, so not handled) first, then the waiting ones in order. Lifecycle messages are dropped.
    func heldNotifications(limit: Int) -> NotificationQueue {
        guard case .notification(let name, let payload)? = self.inFlight?.message else { return self.notifications }
        var held = NotificationQueue()
        _ = held.post(name: name, payload: payload, limit: limit)
        for case .notification(let name, let payload) in self.notifications.messages {
            _ = held.post(name: name, payload: payload, limit: limit)
        }
        return held
    }

    /// Traps when a waiting notification has no slot left in the queue (it would never be delivered) or more
    /// names wait than `limit`. For tests; O(queued).
    func checkInvariants(limit: Int, app: AppID) {
        precondition(
            self.notifications.count <= limit,
            "app=\(app); notifications=\(self.notifications.count); limit=\(limit)"
        )
        var queued = Set<NotificationQueue.Slot>()
        for case .notification(let slot) in self.pending.elements { queued.insert(slot) }
        for slot in self.notifications.slots {
            precondition(queued.contains(slot), "app=\(app); notification \(slot.name) waits without a slot")
        }
    }
}
