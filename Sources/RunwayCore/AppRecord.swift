/// The scheduler's private record of one app. Mutated only by `Scheduler`.
struct AppRecord {
    var descriptor: AppDescriptor
    var state: AppState = .notRunning
    var stateSince: Instant = .origin
    /// Set while a termination runs (`terminating` flag of SPEC section 2).
    var termination: Termination?
    var outbox = Outbox()
    /// Outstanding background tasks (B1), in begin order; their records are in `Scheduler.taskTable`.
    var tasks = AppTasks()
    /// Present while the app is in the background (B3).
    var period: BackgroundPeriod?
    /// True from the moment `didEnterBackground` is queued until it returns (B5, L3).
    var awaitingBackgroundEntry = false
    /// L3 timer, armed when `didEnterBackground` is sent.
    var entryGraceTimer: DeadlineHandle?
    /// Notifications held for a suspended app, coalesced by name (N1).
    var heldNotifications = NotificationQueue()
    /// How the last run ended.
    var lastTermination: TerminationReason?
    var lastExit: ProcessExit?

    init(descriptor: AppDescriptor) {
        self.descriptor = descriptor
    }

    var id: AppID { self.descriptor.id }

    var hasBackgroundModes: Bool { !self.descriptor.backgroundModes.isEmpty }
}

/// One background period: from entering the background until foreground, suspension or termination.
struct BackgroundPeriod {
    var entered: Instant
    /// `distantFuture` for background-mode apps (L7).
    var deadline: Instant
    /// True once the expiration warning fired in this period (B4).
    var warned = false
    var warningTimer: DeadlineHandle?
    var deadlineTimer: DeadlineHandle?
}

/// A termination in progress.
struct Termination {
    enum Phase {
        /// Lifecycle messages (ending with `willTerminate`) are being delivered; `timer` bounds them (L4).
        case messaging
        /// SIGTERM was sent; `timer` is the SIGKILL deadline (L4, P2).
        case signaled
        /// SIGKILL was sent; waiting for the driver to report the exit.
        case killed
    }

    var reason: TerminationReason
    var phase: Phase
    var from: AppState
    var messages: [Message]
    var timer: DeadlineHandle?
}

/// Messages for one app, delivered one at a time (L2).
struct Outbox {
    var pending = MessageQueue()
    var inFlight: (token: MessageToken, message: Message)?

    var isIdle: Bool { self.inFlight == nil && self.pending.isEmpty }
}

/// Notifications held for a suspended app: coalesced by name (last payload wins, first position kept) and
/// bounded; when full, a new name evicts the oldest (N1).
struct NotificationQueue {
    private(set) var entries: [(name: String, payload: String)] = []

    /// Returns the evicted name, if any.
    mutating func post(name: String, payload: String, limit: Int) -> String? {
        if let index = self.entries.firstIndex(where: { $0.name == name }) {
            self.entries[index].payload = payload
            return nil
        }
        var evicted: String?
        if self.entries.count >= limit {
            evicted = self.entries.removeFirst().name
        }
        self.entries.append((name, payload))
        return evicted
    }

    mutating func removeAll() -> [(name: String, payload: String)] {
        defer { self.entries = [] }
        return self.entries
    }

    var count: Int { self.entries.count }
}

/// What a timer in the scheduler's deadline queue is for.
enum TimerKind: Hashable, Sendable {
    /// B4: call the expiration handlers.
    case expirationWarning
    /// B6: the budget deadline.
    case budgetDeadline
    /// L3: `didEnterBackground` did not return in time.
    case backgroundEntryGrace
    /// L4: the termination messages did not finish in time, or SIGKILL is due.
    case termination
}

struct TimerKey: Hashable, Sendable {
    var app: Int
    var kind: TimerKind
}
