import RunwayCore

/// A clock that moves only when told. Tests and the simulated driver read `now` from it.
///
/// - Note: Not thread-safe; a value type owned by one test or driver.
public struct ManualClock: Sendable {
    public private(set) var now: Instant

    public init(now: Instant = .origin) {
        self.now = now
    }

    /// Moves the clock forward to `instant`. Traps if that would move it backwards.
    public mutating func advance(to instant: Instant) {
        precondition(instant >= self.now, "ManualClock cannot go back: now=\(self.now); requested=\(instant)")
        self.now = instant
    }

    public mutating func advance(by span: TimeSpan) {
        self.advance(to: self.now + span)
    }
}
