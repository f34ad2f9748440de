/// When the light look (this process's own children, `ProcessSupervisor+Tracking.swift`) runs between the looks
/// that events make (every terminate, kill, suspension poll and exit scans the app): a few times after something
/// that can make a process leave its app's tree, then never until the next such thing. An idle fleet is not woken.
///
/// The rule: an app's launch, a resumption or a line from an app (`activity`) starts a series of `lookCount` (4)
/// looks, `base`, 2 × `base`, 4 × `base` and 8 × `base` apart (with the default 250 ms base: 0.25, 0.75, 1.75 and
/// 3.75 s after it), which catches the common daemonizing start (`setsid` and a double fork right after the launch)
/// within one base. An activity while a series runs restarts it from its first step at the next look, without
/// re-arming the timer (so a burst of N launches or lines costs nothing per item). A process that leaves its
/// app's tree later, with no event after it, is attributed by the next event's look (the app's suspension,
/// termination or exit, which also scan it) and listed in the state file then (Docs/Security.md).
///
/// Pure: the caller owns the timer (one-shot, re-armed at each look) and makes the look; this value only decides.
/// Loop thread only.
struct SettlingLooks: Hashable, Sendable {
    /// Looks in a series after the last activity.
    static let lookCount = 4

    /// What to do with the timer.
    enum Arming: Hashable, Sendable {
        /// Nothing: the timer is already armed.
        case keep
        /// Arm the timer once, `milliseconds` from now.
        case arm(milliseconds: UInt64)
        /// The series is over: leave the timer stopped.
        case stop
    }

    /// The first step, in whole milliseconds, at least 1.
    let baseMilliseconds: UInt64
    /// True while the timer is armed for a look.
    private(set) var isArmed = false
    /// Looks left in the series, the one armed included.
    private(set) var remaining = 0
    /// The delay of the look armed.
    private(set) var delayMilliseconds: UInt64 = 0
    /// An activity came while the timer was armed: the next look starts the series again.
    private var restartPending = false

    init(baseMilliseconds: UInt64) {
        self.baseMilliseconds = max(1, baseMilliseconds)
    }

    /// Something that can make a process leave its app's tree happened.
    ///
    /// - Returns: `arm` after `base` when no look is armed; else `keep` (the series restarts at the next look).
    mutating func activity() -> Arming {
        guard !self.isArmed else {
            self.restartPending = true
            return .keep
        }
        self.isArmed = true
        self.remaining = Self.lookCount
        self.delayMilliseconds = self.baseMilliseconds
        return .arm(milliseconds: self.baseMilliseconds)
    }

    /// The armed look was made.
    ///
    /// - Returns: `arm` for the next look (after `base` again when an activity came meanwhile, else twice the last
    ///   delay), or `stop` after the last look of the series.
    mutating func looked() -> Arming {
        guard self.isArmed else { return .stop }
        if self.restartPending {
            self.restartPending = false
            self.remaining = Self.lookCount
            self.delayMilliseconds = self.baseMilliseconds
            return .arm(milliseconds: self.baseMilliseconds)
        }
        self.remaining -= 1
        guard self.remaining > 0 else {
            self.isArmed = false
            return .stop
        }
        self.delayMilliseconds = self.delayMilliseconds.multipliedReportingOverflow(by: 2).partialValue
        return .arm(milliseconds: self.delayMilliseconds)
    }

    /// No app needs the looks any more (or the supervisor closes): the series ends.
    ///
    /// - Returns: True when a look was armed (the caller stops the timer).
    mutating func stopped() -> Bool {
        defer {
            self.isArmed = false
            self.restartPending = false
            self.remaining = 0
        }
        return self.isArmed
    }
}
