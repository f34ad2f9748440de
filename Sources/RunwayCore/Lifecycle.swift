/// Where one app is in the lifecycle of Behaviour.md section 2, with the data that exists only there.
///
/// The shape is the invariant: a not-running app has no task, timer or message; a suspended app has no task and
/// nothing to deliver, only held notifications (N1); only a background app has a budget (B3) and an entry grace
/// (L3); only a terminating app has a termination. Changing state means building the next case from the parts
/// that carry over, so a field cannot outlive the state it belongs to.
enum Lifecycle {
    /// Not running (the app has not launched, or has ended).
    case notRunning
    /// `active` or `inactive`: messages flow and tasks cost nothing (B2).
    case foreground(Foreground, RunningApp)
    /// In the background: the budget runs (B3–B6) unless the app has background modes (L7).
    case background(BackgroundPeriod, RunningApp)
    /// Suspended: no task, no message; notifications are held for the resume (N1).
    case suspended(held: NotificationQueue)
    /// A termination runs (the `terminating` flag); the visible state stays the one it began in.
    case terminating(Termination, RunningApp)

    /// The foreground states.
    enum Foreground: Hashable {
        case active
        case inactive
    }

    /// The state as the spec names it (a terminating app shows the state its termination began in).
    var state: AppState {
        switch self {
        case .notRunning: return .notRunning
        case .foreground(.active, _): return .active
        case .foreground(.inactive, _): return .inactive
        case .background: return .background
        case .suspended: return .suspended
        case .terminating(let termination, _): return termination.from
        }
    }

    /// The running app's messages and tasks, in the states that have them.
    var running: RunningApp? {
        switch self {
        case .foreground(_, let running), .background(_, let running), .terminating(_, let running): return running
        case .notRunning, .suspended: return nil
        }
    }

    var period: BackgroundPeriod? {
        if case .background(let period, _) = self { return period }
        return nil
    }

    var termination: Termination? {
        if case .terminating(let termination, _) = self { return termination }
        return nil
    }

    var isTerminating: Bool { self.termination != nil }

    var isNotRunning: Bool {
        if case .notRunning = self { return true }
        return false
    }

    /// Changes the running app's messages and tasks in place; nil (and `body` not called) when the app is not
    /// running or is suspended.
    ///
    /// The payload is moved out (`consume self`), changed and moved back: no copy of the case's data and no
    /// retain or release of its references (storing a placeholder case meanwhile costs an outlined copy and
    /// destroy of the whole payload per call, measured with callgrind).
    mutating func withRunning<R>(_ body: (inout RunningApp) -> R) -> R? {
        switch consume self {
        case .foreground(let mode, var running):
            let result = body(&running)
            self = .foreground(mode, running)
            return result
        case .background(let period, var running):
            let result = body(&running)
            self = .background(period, running)
            return result
        case .terminating(let termination, var running):
            let result = body(&running)
            self = .terminating(termination, running)
            return result
        case .notRunning:
            self = .notRunning
            return nil
        case .suspended(let held):
            self = .suspended(held: held)
            return nil
        }
    }

    /// Changes a suspended app's held notifications in place; nil (and `body` not called) in any other state.
    /// Moves the queue out and back, like `withRunning(_:)`, so that its storage stays uniquely referenced and a
    /// change copies nothing.
    mutating func withHeld<R>(_ body: (inout NotificationQueue) -> R) -> R? {
        guard case .suspended = self else { return nil }
        switch consume self {
        case .suspended(var held):
            let result = body(&held)
            self = .suspended(held: held)
            return result
        case let other:
            self = other
            return nil
        }
    }

    /// Changes a background app's period and running data in place; nil (and `body` not called) in any
    /// other state. Moves the payload out and back, like `withRunning(_:)`.
    mutating func withBackground<R>(_ body: (inout BackgroundPeriod, inout RunningApp) -> R) -> R? {
        guard case .background = self else { return nil }
        switch consume self {
        case .background(var period, var running):
            let result = body(&period, &running)
            self = .background(period, running)
            return result
        case let other:
            self = other
            return nil
        }
    }
}

/// What a running app holds in every running state.
struct RunningApp {
    /// The data behind one reference, copied on write: a `Lifecycle` case that carries a `RunningApp` then holds
    /// one reference instead of the five of its arrays and dictionaries, so the enum stays small (72 bytes) for the
    /// moves of `Lifecycle.withRunning`, and a change is made in place whenever the storage is not shared.
    ///
    /// `@exclusivity(unchecked)`: without it every access to these two properties (several per begin, end and
    /// expiry) calls the runtime's dynamic exclusivity check, about 80 instructions each (measured with callgrind).
    /// It is safe because a `Storage` is reached only through one `RunningApp` value's `outbox` and `tasks`
    /// accessors: `_modify` makes the storage unique first, so a modification never touches a storage another value
    /// shares, and two accesses through the same value are ordered by the static exclusivity of that value.
    private final class Storage {
        @exclusivity(unchecked) var outbox: Outbox
        @exclusivity(unchecked) var tasks: AppTasks

        init(outbox: Outbox, tasks: AppTasks) {
            self.outbox = outbox
            self.tasks = tasks
        }
    }

    private var storage: Storage

    init(outbox: Outbox = Outbox(), tasks: AppTasks = AppTasks()) {
        self.storage = Storage(outbox: outbox, tasks: tasks)
    }

    init(messages: [Message]) {
        var outbox = Outbox()
        outbox.append(messages)
        self.storage = Storage(outbox: outbox, tasks: AppTasks())
    }

    /// Messages to deliver, one at a time (L2).
    var outbox: Outbox {
        _read { yield self.storage.outbox }
        _modify {
            self.makeUnique()
            yield &self.storage.outbox
        }
    }

    /// Outstanding background tasks (B1), in begin order; their records are in `Scheduler.taskTable`.
    var tasks: AppTasks {
        _read { yield self.storage.tasks }
        _modify {
            self.makeUnique()
            yield &self.storage.tasks
        }
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&self.storage) {
            self.storage = Storage(outbox: self.storage.outbox, tasks: self.storage.tasks)
        }
    }
}
