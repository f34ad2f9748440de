// The scheduler core: every app's lifecycle state machine, background tasks and budgets, message ordering,
// and the deadlines that enforce them. It does no I/O and reads no clock.
//
// How a driver uses it: feed each event (a command, a message's return, a task request, a process exit,
// the clock reaching a wake-up) with the instant it read once for this loop turn; run the returned actions
// in order; keep one wake-up at the instant of the last `armWakeup` action (none after `cancelWakeup`) and
// call `clockAdvanced(to:)` when it fires (or later: late is measured by the driver, never early).
// `ActionRunner` does all of that for the real loop and for the simulation alike.
//
// Each app's state is a `Lifecycle` value whose cases carry exactly the data of that state, so what may exist
// in which state is checked by the compiler. The events are in `Scheduler+<Concern>.swift`, each a `switch` over
// the lifecycle with a comment per row. What the types cannot say is checked by `checkInvariants()`:
// - Every armed timer is referenced by exactly one app, and every referenced handle is armed.
// - The task table and the apps' task lists agree; task ids are issued in increasing order, never reused, never
//   `.invalid`.

/// The I/O-free scheduler of one event loop.
///
/// - Note: Not thread-safe. One owner (the loop thread) calls it. Every input takes `now`, which must never
///   decrease between calls; the scheduler never reads a clock. Deadlines are exact: a timer fires in the
///   first `clockAdvanced(to:)` whose `now` reaches it, never before (B9), and timers with equal deadlines
///   fire in the order they were armed (B10).
@_spi(Driver)
public struct Scheduler {
    /// The settings given to `init`; fixed for the scheduler's lifetime.
    public private(set) var settings: SchedulerSettings

    var apps: [AppRecord] = []
    var appIndex: [AppID: Int] = [:]
    var timers = DeadlineQueue<TimerKey>()
    var taskTable = TaskTable()
    var nextTaskID: UInt64 = 1
    var nextToken: UInt64 = 1
    /// The next background wake-up token (W4); 0 is never issued.
    var nextWakeToken: UInt64 = 1
    var lastNow: Instant = .origin
    var announcedWakeup: Instant?
    var stopping = false
    /// The apps each open device-wide interruption reached (`lock`, `offerShutdown`, `alert`), for its closing
    /// event.
    var interrupted: [DeviceEvent: [Int]] = [:]
    var pressureLevel = MemoryPressureLevel.normal
    /// KeepAlive: the earliest instant the next restart may start (`SchedulerSettings.restartSpacing`).
    var restartSlot: Instant = .origin
    /// Apps whose `RestartStatus.crashLooping` is true, kept as it changes (Scheduler+Restart.swift).
    var crashLoopingApps = 0
    /// Actions produced by the current call, returned by `finish()` or handed over by `finish(into:)`.
    var actions: [Action] = []
    /// The app the last event named and its index (apps are never removed, so an index stays valid): a driver
    /// usually sends several events for one app in a row, and comparing two `AppID`s costs far less than hashing
    /// one (about 350 instructions, measured with callgrind).
    var lastLookup: (id: AppID, index: Int)?
    /// The timers due in the current `advanceClock`, kept empty between calls so that its storage is reused: a
    /// wake-up allocates no array.
    var dueTimers: [DeadlineQueue<TimerKey>.DueEntry] = []

    /// A scheduler with no app registered, at `Instant.origin` (the first input may be at any instant).
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

    /// The apps registered after the first `count`, in registration order. Apps are never removed, so a caller
    /// that keeps a row per app reads only the new ones: O(new apps).
    public func appIDs(after count: Int) -> [AppID] {
        count < self.apps.count ? self.apps[max(0, count)...].map(\.id) : []
    }

    /// The app's descriptor, or nil for an unknown app. O(1).
    public func descriptor(of app: AppID) -> AppDescriptor? {
        self.appIndex[app].map { self.apps[$0].descriptor }
    }

    /// The app's state, or nil for an unknown app.
    public func state(of app: AppID) -> AppState? {
        self.appIndex[app].map { self.apps[$0].state }
    }

    /// True while a termination of the app is running (the `terminating` flag).
    public func isTerminating(_ app: AppID) -> Bool {
        self.appIndex[app].map { self.apps[$0].lifecycle.isTerminating } ?? false
    }

    /// The app's outstanding tasks in begin order. O(tasks held in its list).
    func outstandingTasks(_ index: Int) -> [BackgroundTaskID] {
        guard let tasks = self.apps[index].lifecycle.running?.tasks else { return [] }
        // Ended ids leave the list lazily, and `count` counts only outstanding ones: when the two agree nothing in
        // the list has ended, and the list itself (shared, not copied) is the answer.
        if tasks.count == tasks.ids.count { return tasks.ids }
        return tasks.ids.filter { self.taskTable.owner(of: $0) == index }
    }

    /// True once `shutdownRequested` was called: launches are refused (P4).
    public var isStopping: Bool { self.stopping }

    /// True when every app is `notRunning` (the end of a shutdown, P4).
    public var allAppsStopped: Bool { self.apps.allSatisfy { $0.lifecycle.isNotRunning } }

    /// The earliest armed deadline: the instant of the next wake-up, or nil.
    public var nextWakeup: Instant? { self.timers.earliestDeadline }

    /// Remaining background time (B3): `TimeSpan.max` in the foreground and for background-mode apps,
    /// `max(0, deadline - now)` in the background, zero when suspended, not running, terminating or unknown.
    public func backgroundTimeRemaining(for app: AppID, now: Instant) -> TimeSpan {
        guard let index = self.appIndex[app] else { return .zero }
        switch self.apps[index].lifecycle {
        case .foreground: return .max
        case .background(let period, _): return period.remaining(now: now)
        case .notRunning, .suspended, .terminating: return .zero
        }
    }

    /// Every armed deadline with its app and purpose (`expirationWarning`, `budgetDeadline`,
    /// `backgroundEntryGrace`, `termination`), in the order they would fire. For test harnesses that check when
    /// deadlines fire (RunwayTestKit). O(n log n) in the armed timers.
    package var armedTimers: [(handle: DeadlineHandle, app: AppID, kind: String, deadline: Instant)] {
        self.timers.armedInOrder.map { ($0.handle, self.apps[$0.payload.app].id, "\($0.payload.kind)", $0.deadline) }
    }

    /// True for a process app (`AppKind.process`). O(1).
    package func isProcess(_ app: AppID) -> Bool {
        self.appIndex[app].map { self.apps[$0].descriptor.isProcess } ?? false
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

    /// `finish()` without allocating: the call's actions replace the contents of `buffer`, and the scheduler keeps
    /// `buffer`'s old storage (emptied, capacity kept) for the next call, so two buffers alternate.
    mutating func finish(into buffer: inout [Action]) {
        let earliest = self.timers.earliestDeadline
        if earliest != self.announcedWakeup {
            self.actions.append(earliest.map { .armWakeup($0) } ?? .cancelWakeup)
            self.announcedWakeup = earliest
        }
        guard !self.actions.isEmpty else {
            if !buffer.isEmpty { Self.clear(&buffer) }
            return
        }
        swap(&buffer, &self.actions)
        Self.clear(&self.actions)
    }

    /// Empties `actions`, keeping its capacity. One `removeLast()` per element: a call leaves one or two actions,
    /// and `removeAll(keepingCapacity:)` costs more than that for so few (measured with callgrind).
    private static func clear(_ actions: inout [Action]) {
        while !actions.isEmpty { actions.removeLast() }
    }

    /// The index of a registered app, or nil. O(1): the last app asked for is remembered, so a run of events for
    /// one app hashes its id once.
    mutating func lookup(_ app: AppID) -> Int? {
        if let last = self.lastLookup, last.id == app { return last.index }
        guard let index = self.appIndex[app] else { return nil }
        self.lastLookup = (app, index)
        return index
    }

    mutating func index(of app: AppID) throws(SchedulerError) -> Int {
        guard let index = self.lookup(app) else { throw SchedulerError(.unknownApp, app: app) }
        return index
    }

    mutating func arm(_ kind: TimerKind, app index: Int, at deadline: Instant) -> DeadlineHandle {
        self.timers.insert(TimerKey(app: index, kind: kind), at: deadline)
    }

    /// Cancels timers; a handle that already fired is ignored.
    mutating func disarm(_ handles: [DeadlineHandle]) {
        for handle in handles { _ = self.timers.cancel(handle) }
    }

    /// Cancels every timer of a background period, without building an array of them.
    mutating func disarm(_ period: BackgroundPeriod) {
        period.forEachTimer { handle, _ in _ = self.timers.cancel(handle) }
    }

    /// Cancels every timer `record` holds (`AppRecord.timerKinds`), without building an array of them.
    mutating func disarmTimers(of record: AppRecord) {
        record.forEachTimer { handle, _ in _ = self.timers.cancel(handle) }
    }

    /// Moves the app to `lifecycle`; "time in state" restarts when the visible state changes.
    mutating func enter(_ index: Int, _ lifecycle: Lifecycle) {
        let before = self.apps[index].state
        self.apps[index].lifecycle = lifecycle
        if lifecycle.state != before { self.apps[index].stateSince = self.lastNow }
    }

    /// Publishes a transition (L8) and, for a process app that is still running, the `oom_score_adj` of its new
    /// state (P3: the kernel's OOM killer follows the purge order).
    mutating func publish(
        _ index: Int,
        from: AppState,
        to: AppState,
        cause: TransitionCause,
        messages: [Message],
        exit: ProcessExit? = nil,
        restart: PendingRestart? = nil,
        userAction: UserAction? = nil,
        ending: (ending: RunEnding, kept: Bool?)? = nil
    ) {
        let record = self.apps[index]
        var event = TransitionEvent(
            app: record.id,
            from: from,
            to: to,
            cause: cause,
            at: self.lastNow,
            messages: messages,
            exit: exit
        )
        event.restart = restart
        event.userAction = userAction
        // R2: a launch says whether it restores; R3: an ending says what became of the stored state.
        if from == .notRunning { event.restoration = record.restoration.restoredFrom }
        if let kept = ending?.kept {
            event.runEnding = ending?.ending
            event.preservedStateKept = kept
        }
        self.actions.append(.publish(event))
        if record.descriptor.isProcess, let score = Self.oomScoreAdjust(for: to) {
            self.actions.append(.setOOMScoreAdjust(record.id, score))
        }
    }

    /// `oom_score_adj` per state (P3): active apps are the last the kernel kills, suspended ones the first.
    static func oomScoreAdjust(for state: AppState) -> Int? {
        switch state {
        case .active: return 0
        case .inactive: return 200
        case .background: return 500
        case .suspended: return 1000
        case .notRunning: return nil
        }
    }
}
