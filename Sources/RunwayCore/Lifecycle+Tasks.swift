// Beginning a background task (B1, B2, B4) as one visit to the app's lifecycle in place.

extension Lifecycle {
    /// Checks whether task `id` may begin now and, if so, adds it to the app's list, in one visit that moves the
    /// payload out and back (no copy of it). Returns whether the task began after the expiration warning (B4: its
    /// `backgroundTaskWillExpire` is queued here and the caller sends it), or why it may not begin.
    ///
    /// The refusals in `Scheduler.backgroundTaskRequested`'s order: the state's (terminating; an immediate-style
    /// exits-on-suspend app, E1; not running; suspended; a background period whose budget ran out at `now`), then
    /// `nameRefusal`, then the per-app `limit` (`tooManyTasks`). A refused task changes nothing.
    mutating func beginTask(
        _ id: BackgroundTaskID,
        now: Instant,
        limit: Int,
        exitsImmediately: Bool,
        nameRefusal: TaskRefusal?
    ) -> Result<Bool, TaskRefusal> {
        switch consume self {
        case .terminating(let termination, let running):
            self = .terminating(termination, running)
            return .failure(.terminating)
        case let other where exitsImmediately:
            self = other
            return .failure(.exitsOnSuspendImmediately)
        case .notRunning:
            self = .notRunning
            return .failure(.notRunning)
        case .suspended(let held):
            self = .suspended(held: held)
            return .failure(.suspended)
        case .foreground(let mode, var running):
            // B2: tasks begun in the foreground cost nothing until the app enters the background.
            let outcome = Self.add(id, to: &running, limit: limit, nameRefusal: nameRefusal, warned: false)
            self = .foreground(mode, running)
            return outcome
        case .background(let period, var running):
            // B1: not after the budget of this period ran out.
            let exhausted = period.deadline.map { now >= $0 } == true
            let outcome =
                exhausted
                ? .failure(.budgetExhausted)
                : Self.add(id, to: &running, limit: limit, nameRefusal: nameRefusal, warned: period.isWarned)
            self = .background(period, running)
            return outcome
        }
    }

    /// The name's refusal, then the limit, then the task (and its expiration message when `warned`, B4).
    private static func add(
        _ id: BackgroundTaskID,
        to running: inout RunningApp,
        limit: Int,
        nameRefusal: TaskRefusal?,
        warned: Bool
    ) -> Result<Bool, TaskRefusal> {
        if let nameRefusal { return .failure(nameRefusal) }
        guard running.tasks.count < limit else { return .failure(.tooManyTasks(limit: limit)) }
        running.tasks.began(id)
        if warned { running.outbox.append(.backgroundTaskWillExpire(id)) }
        return .success(warned)
    }
}
