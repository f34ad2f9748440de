/// Decides when a protocol child has misbehaved enough to be terminated (A5). Pure: the caller passes `now`.
///
/// Two limits on what the app sends, each over a sliding window:
/// - malformed lines (invalid JSON, unknown request, too long): more than `malformedLimit` within `window`;
/// - all lines: more than `lineLimit` within `window` (a flood).
/// Each malformed line is also answered with an error line by the caller; only crossing a limit terminates.
///
/// One limit on what the app does not read: more than `writeQueueLimitBytes` queued for it and not yet written
/// (an app that stops reading its channel would otherwise make Runway buffer without bound).
package struct ProtocolPolicer: Sendable {
    package enum Verdict: Hashable, Sendable {
        case accept
        /// The app crossed a limit: terminate it with reason `protocolViolation`. `reason` says which.
        case violation(reason: String)
    }

    package let malformedLimit: Int
    package let lineLimit: Int
    package let window: TimeSpan
    package let writeQueueLimitBytes: Int
    private var malformed: [Instant] = []
    private var lines: [Instant] = []
    private var linesHead = 0

    /// - Parameters:
    ///   - malformedLimit: Malformed lines tolerated per window. Default 3.
    ///   - lineLimit: Lines of any kind tolerated per window. Default 1,000.
    ///   - window: Default 1 s.
    ///   - writeQueueLimitBytes: Bytes queued to the app and not yet written, beyond which it is terminated.
    ///     Default 1 MiB; greater than 0.
    package init(
        malformedLimit: Int = 3,
        lineLimit: Int = 1_000,
        window: TimeSpan = .seconds(1),
        writeQueueLimitBytes: Int = 1 << 20
    ) {
        precondition(malformedLimit >= 0 && lineLimit > 0 && window > .zero, "ProtocolPolicer limits must be positive")
        precondition(writeQueueLimitBytes > 0, "writeQueueLimitBytes must be positive, got \(writeQueueLimitBytes)")
        self.malformedLimit = malformedLimit
        self.lineLimit = lineLimit
        self.window = window
        self.writeQueueLimitBytes = writeQueueLimitBytes
    }

    /// A well-formed line arrived at `now`.
    package mutating func lineReceived(now: Instant) -> Verdict {
        self.countLine(now)
    }

    /// A malformed line arrived at `now`.
    package mutating func malformedLineReceived(now: Instant) -> Verdict {
        if case .violation(let reason) = self.countLine(now) { return .violation(reason: reason) }
        self.malformed.removeAll { $0 + self.window <= now }
        self.malformed.append(now)
        if self.malformed.count > self.malformedLimit {
            return .violation(reason: "more than \(self.malformedLimit) malformed lines within \(self.window)")
        }
        return .accept
    }

    /// Runway wrote to the app and `bytes` are now queued for it, not yet taken by the app (A5).
    ///
    /// - Parameters:
    ///   - bytes: The whole write queue after the write, not the size of the last line.
    /// - Returns: `.violation` when more than `writeQueueLimitBytes` are queued (exactly the limit is accepted).
    /// - Note: Needs no `now`: the queue is a level, not a rate. Asked after every write, so it says `.violation`
    ///   again while the queue stays over the limit; the caller closes the channel at the first one.
    package func bytesQueued(_ bytes: Int) -> Verdict {
        guard bytes > self.writeQueueLimitBytes else { return .accept }
        return .violation(reason: "more than \(self.writeQueueLimitBytes) bytes unread")
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
