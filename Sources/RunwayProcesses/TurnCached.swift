@_spi(Processes) import RunwayCore

/// A value made at most once per loop turn: asked again with the same turn (`EventLoopThread.turnNow`, one `Instant`
/// for every callback of a turn) it is the value kept; asked with a later one it is made anew. What a batch of N
/// launches reads of this process (its environment, its `oom_score_adj`, `RLIMIT_NOFILE`, the programs it looks up)
/// is read once, and a change shows at the next turn. Not thread-safe: the supervisor keeps it on the loop thread.
struct TurnCached<Value> {
    private var stored: (turn: Instant, value: Value)?

    /// The value of the turn `now`: the one kept, or else `make()`'s, kept for the rest of the turn.
    mutating func value(at now: Instant, _ make: () -> Value) -> Value {
        if let stored, stored.turn == now { return stored.value }
        let value = make()
        self.stored = (now, value)
        return value
    }

    /// Keeps `value` as the value of the turn `now`.
    mutating func keep(_ value: Value, at now: Instant) {
        self.stored = (now, value)
    }
}
