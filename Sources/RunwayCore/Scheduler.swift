// The scheduler core: every app's lifecycle state machine, background tasks and budgets, message ordering,
// and the deadlines that enforce them. It does no I/O and reads no clock.
//
// How a driver uses it: feed each event (a command, a message's return, a task request, a process exit,
// the clock reaching a wake-up) with the instant it read once for this loop turn; run the returned actions
// in order; arm one wake-up at the instant of the last `armWakeup` action and call `clockAdvanced(to:)`
// when it fires (or later: late is measured by the driver, never early).
//
// Invariants (checked by `checkInvariants()`):
// - A `notRunning` app has no tasks, no timers, an empty outbox and no background period.
// - Only `background` apps have a background period; only they have budget timers.
// - A `suspended` app has nothing in flight and nothing pending in its outbox (no message reaches it).
// - Every armed timer is referenced by exactly one app field, and every referenced handle is armed.
// - Task ids are issued in increasing order, never reused, never `.invalid`.

/// The I/O-free scheduler of one event loop.
///
/// - Note: Not thread-safe. One owner (the loop thread) calls it. Every input takes `now`, which must never
///   decrease between calls; the scheduler never reads a clock. Deadlines are exact: a timer fires in the
///   first `clockAdvanced(to:)` whose `now` reaches it, never before (B9), and timers with equal deadlines
///   fire in the order they were armed (B10).
public struct Scheduler {
    public private(set) var settings: SchedulerSettings

    var apps: [AppRecord] = []
    var appIndex: [AppID: Int] = [:]
    var timers = DeadlineQueue<TimerKey>()
    var taskTable = TaskTable()
    var nextTaskID: UInt64 = 1
    var nextToken: UInt64 = 1
    var lastNow: Instant = .origin
    var announcedWakeup: Instant?
    var stopping = false
    var pressureLevel = MemoryPressureLevel.normal
    /// Actions produced by the current call, returned by `finish()`.
    var actions: [Action] = []

    /// When true, every timer firing is appended to `firedTimers` (for property tests).
    package var recordsTimerFirings = false
    package internal(set) var firedTimers: [FiredTimer] = []

    package struct FiredTimer: Hashable, Sendable {
        package var app: AppID
        package var kind: String
        package var deadline: Instant
        package var firedAt: Instant
    }

    public init(settings: SchedulerSettings = SchedulerSettings()) {
        self.settings = settings
    }

    // MARK: Apps

    /// Registers an app in `notRunning`. Throws `duplicateApp` if its identifier is taken.
    public mutating func register(_ descriptor: AppDescriptor) throws(SchedulerError) {
        guard self.appIndex[descriptor.id] == nil else {
            throw SchedulerError(.duplicateApp, app: descriptor.id)
        }
        self.appIndex[descriptor.id] = self.apps.count
        self.apps.append(AppRecord(descriptor: descriptor))
    }

    /// The registered apps, in registration order.
    public var appIDs: [AppID] { self.apps.map(\.id) }

    /// The app's state, or nil for an unknown app.
    public func state(of app: AppID) -> AppState? {
        self.appIndex[app].map { self.apps[$0].state }
    }

    /// True while a termination of the app is running (the `terminating` flag).
    public func isTerminating(_ app: AppID) -> Bool {
        self.appIndex[app].map { self.apps[$0].termination != nil } ?? false
    }

    /// The app's outstanding tasks in begin order. O(tasks held in its list).
    func outstandingTasks(_ index: Int) -> [BackgroundTaskID] {
        self.apps[index].tasks.ids.filter { self.taskTable.owner(of: $0) == index }
    }

    /// True when every app is `notRunning` (the end of a shutdown, P4).
    public var allAppsStopped: Bool { self.apps.allSatisfy { $0.state == .notRunning } }

    /// The earliest armed deadline: the instant of the next wake-up, or nil.
    public var nextWakeup: Instant? { self.timers.earliestDeadline }

    /// Remaining background time (B3): `TimeSpan.max` in the foreground and for background-mode apps,
    /// `max(0, deadline - now)` in the background, zero when suspended, not running or unknown.
    public func backgroundTimeRemaining(for app: AppID, now: Instant) -> TimeSpan {
        guard let index = self.appIndex[app] else { return .zero }
        let record = self.apps[index]
        if record.termination != nil { return .zero }
        switch record.state {
        case .active, .inactive: return .max
        case .notRunning, .suspended: return .zero
        case .background:
            guard let period = record.period else { return .zero }
            if period.deadline == .distantFuture { return .max }
            return now >= period.deadline ? .zero : period.deadline - now
        }
    }

    // MARK: Call plumbing

    mutating func begin(_ now: Instant) {
        precondition(now >= self.lastNow, "Time went backwards: now=\(now); last=\(self.lastNow)")
        precondition(self.actions.isEmpty, "Re-entered the scheduler with \(self.actions.count) actions pending")
        self.lastNow = now
    }

    /// Appends a wake-up change if the earliest deadline moved, and hands the call's actions over.
    mutating func finish() -> [Action] {
        let earliest = self.timers.earliestDeadline
        if earliest != self.announcedWakeup {
            self.actions.append(earliest.map { .armWakeup($0) } ?? .cancelWakeup)
            self.announcedWakeup = earliest
        }
        defer { self.actions = [] }
        return self.actions
    }

    mutating func index(of app: AppID) throws(SchedulerError) -> Int {
        guard let index = self.appIndex[app] else { throw SchedulerError(.unknownApp, app: app) }
        return index
    }

    mutating func arm(_ kind: TimerKind, app index: Int, at deadline: Instant) -> DeadlineHandle {
        self.timers.insert(TimerKey(app: index, kind: kind), at: deadline)
    }


    mutating func publish(
        _ index: Int,
        from: AppState,
        to: AppState,
        cause: TransitionCause,
        messages: [Message],
        exit: ProcessExit? = nil
    ) {
        let event = TransitionEvent(
            app: self.apps[index].id,
            from: from,
            to: to,
            cause: cause,
            at: self.lastNow,
            messages: messages,
            exit: exit
        )
        self.actions.append(.publish(event))
    }

    /// Changes state and records the instant (for "time in state").
    mutating func setState(_ index: Int, _ state: AppState) {
        self.apps[index].state = state
        self.apps[index].stateSince = self.lastNow
    }
}

/// Cancels an armed timer and clears the field that held it. A free function so that a field of
/// `Scheduler.apps` and `Scheduler.timers` can be passed together without overlapping access.
func disarm(_ handle: inout DeadlineHandle?, in timers: inout DeadlineQueue<TimerKey>) {
    if let armed = handle {
        timers.cancel(armed)
        handle = nil
    }
}
