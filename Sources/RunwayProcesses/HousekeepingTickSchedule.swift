/// When the supervisor's housekeeping tick runs: the one libuv timer that polls suspensions waiting for a drain,
/// pending confirmations and leftovers to reap (`ProcessSupervisor+Tick.swift`).
///
/// The rule: the tick runs only while something is pending, every `intervalMilliseconds` (1 ms by default,
/// `ProcessOptions.confirmationPollMilliseconds`). A request `soon` (a suspension just signalled, which the kernel
/// shows on a later turn) makes the next tick fire on the next loop turn (a zero timeout) and then every interval;
/// a running tick is re-armed that way at most once until it fires, so a batch of N requests in one turn costs one
/// tick, not N. It is bookkeeping, never a deadline of the core's: those use the loop's own wake-up.
///
/// Pure: the caller owns the timer and performs the returned arming; this value only decides. Loop thread only.
struct HousekeepingTickSchedule: Hashable, Sendable {
    /// What to do with the timer after a request.
    enum Arming: Hashable, Sendable {
        /// Nothing: the timer already runs as asked.
        case keep
        /// (Re)start the timer: first after `firstMilliseconds` (0: the next loop turn), then every
        /// `everyMilliseconds`.
        case start(firstMilliseconds: UInt64, everyMilliseconds: UInt64)
    }

    let intervalMilliseconds: UInt64
    /// True while the timer runs.
    private(set) var isRunning = false
    /// True while the timer is armed to fire on the next loop turn.
    private(set) var firesNextTurn = false

    init(intervalMilliseconds: UInt64) {
        self.intervalMilliseconds = intervalMilliseconds
    }

    /// Something became pending. With `soon`, it wants a look on the next loop turn.
    ///
    /// - Returns: `keep` when the timer runs and either `soon` is not asked or it already fires next turn;
    ///   else `start`, with a first timeout of 0 for `soon` and of the interval otherwise.
    mutating func requested(soon: Bool) -> Arming {
        if self.isRunning && (!soon || self.firesNextTurn) { return .keep }
        self.isRunning = true
        self.firesNextTurn = soon
        let first = soon ? 0 : self.intervalMilliseconds
        return .start(firstMilliseconds: first, everyMilliseconds: self.intervalMilliseconds)
    }

    /// The timer fired: its next firing is an interval away, so a later `soon` re-arms it.
    mutating func fired() {
        self.firesNextTurn = false
    }

    /// After a tick's work: whether anything is still pending.
    ///
    /// - Returns: True when the timer must be stopped (it runs and nothing is pending).
    mutating func settled(pending: Bool) -> Bool {
        pending ? false : self.stopped()
    }

    /// The timer is to be stopped (nothing pending, or the supervisor closes).
    ///
    /// - Returns: True when it ran (the caller stops it), false when it was already stopped.
    mutating func stopped() -> Bool {
        guard self.isRunning else { return false }
        self.isRunning = false
        self.firesNextTurn = false
        return true
    }
}
