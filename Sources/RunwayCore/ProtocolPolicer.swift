/// Decides when a protocol child has misbehaved enough to be terminated (A5). Pure: the caller passes `now`.
///
/// Two limits, each over a sliding window:
/// - malformed lines (invalid JSON, unknown request, too long): more than `malformedLimit` within `window`;
/// - all lines: more than `lineLimit` within `window` (a flood).
/// Each malformed line is also answered with an error line by the caller; only crossing a limit terminates.
public struct ProtocolPolicer: Sendable {
    public enum Verdict: Hashable, Sendable {
        case accept
        /// The app crossed a limit: terminate it with reason `protocolViolation`. `reason` says which.
        case violation(reason: String)
    }

    public let malformedLimit: Int
    public let lineLimit: Int
    public let window: TimeSpan
    private var malformed: [Instant] = []
    private var lines: [Instant] = []
    private var linesHead = 0

    /// - Parameters:
    ///   - malformedLimit: Malformed lines tolerated per window. Default 3.
    ///   - lineLimit: Lines of any kind tolerated per window. Default 1,000.
    ///   - window: Default 1 s.
    public init(malformedLimit: Int = 3, lineLimit: Int = 1_000, window: TimeSpan = .seconds(1)) {
        precondition(malformedLimit >= 0 && lineLimit > 0 && window > .zero, "ProtocolPolicer limits must be positive")
        self.malformedLimit = malformedLimit
        self.lineLimit = lineLimit
        self.window = window
    }

    /// A well-formed line arrived at `now`.
    public mutating func lineReceived(now: Instant) -> Verdict {
        self.countLine(now)
    }

    /// A malformed line arrived at `now`.
    public mutating func malformedLineReceived(now: Instant) -> Verdict {
        if case .violation(let reason) = self.countLine(now) { return .violation(reason: reason) }
        self.malformed.removeAll { $0 + self.window <= now }
        self.malformed.append(now)
        if self.malformed.count > self.malformedLimit {
            return .violation(reason: "more than \(self.malformedLimit) malformed lines within \(self.window)")
        }
        return .accept
    }

    private mutating func countLine(_ now: Instant) -> Verdict {
        // Bounded: at most lineLimit + 1 live instants, plus at most 1,024 expired ones before compaction.
        while self.linesHead < self.lines.count, self.lines[self.linesHead] + self.window <= now { self.linesHead += 1 }
        if self.linesHead > 1_024 {
            self.lines.removeFirst(self.linesHead)
            self.linesHead = 0
        }
        self.lines.append(now)
        if self.lines.count - self.linesHead > self.lineLimit {
            return .violation(reason: "more than \(self.lineLimit) lines within \(self.window)")
        }
        return .accept
    }
}
