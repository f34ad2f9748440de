import CLibUV
@_spi(Benchmarks) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The scheduling policy asked for the loop thread: the thread that wakes for every deadline and runs every
/// expiration handler.
///
/// Why it matters: at the normal policy (SCHED_OTHER) a woken loop thread waits for the CPU behind any other
/// runnable thread (kernel workers, other processes, this process's own task executors), so on a busy or small
/// machine an occasional deadline is served milliseconds late. SCHED_FIFO runs the loop thread before every
/// SCHED_OTHER thread the moment its timer fires (Docs/Performance.md measures the difference).
///
/// The cost: while the loop thread runs, no normal thread runs on its CPU. An expiration handler or delegate
/// method that spins on the loop thread takes that CPU for up to the kernel's real-time throttle
/// (`/proc/sys/kernel/sched_rt_runtime_us`, 95% by default). Keep loop-thread work short, as always.
public enum LoopThreadPriority: Hashable, Sendable, CustomStringConvertible {
    /// The policy of the thread that creates the scheduler, normally SCHED_OTHER. The default.
    case inherited
    /// SCHED_FIFO at `priority`, one of ``realtimePriorities`` (higher runs first), with SCHED_RESET_ON_FORK:
    /// threads and child processes started from the loop thread (process apps) run at the normal policy.
    ///
    /// Needs CAP_SYS_NICE, or `RLIMIT_RTPRIO` (`ulimit -r`) of at least `priority`. Without either the loop
    /// thread keeps the inherited policy and ``LoopThreadPriorityOutcome/refused(priority:errno:)`` says why.
    case realtime(priority: Int32)

    /// The SCHED_FIFO priorities Linux accepts, 1 ... 99 (the config loader checks the same bounds).
    public static let realtimePriorities: ClosedRange<Int32> = LoopLimits.realtimePriorities

    /// `inherited` or `SCHED_FIFO <priority>`, for logs and reports.
    public var description: String {
        switch self {
        case .inherited: "inherited"
        case .realtime(let priority): "SCHED_FIFO \(priority)"
        }
    }
}

/// What the loop thread got when it asked for its ``LoopThreadPriority``.
public enum LoopThreadPriorityOutcome: Hashable, Sendable, CustomStringConvertible {
    /// Nothing was asked; the thread runs at its creator's policy.
    case inherited
    /// The thread runs at SCHED_FIFO `priority`.
    case realtime(priority: Int32)
    /// SCHED_FIFO `priority` was refused with `errno` (EPERM: no CAP_SYS_NICE and `RLIMIT_RTPRIO` too low); the
    /// thread runs at its creator's policy.
    case refused(priority: Int32, errno: Int32)

    /// For logs and `runway bench` reports: `inherited policy`, `SCHED_FIFO <priority>`, or the refusal with the
    /// error's text and, for EPERM, what would allow it.
    public var description: String {
        switch self {
        case .inherited:
            return "inherited policy"
        case .realtime(let priority):
            return "SCHED_FIFO \(priority)"
        case .refused(let priority, let errno):
            let reason = String(cString: strerror(errno))
            let hint = errno == EPERM ? " (needs CAP_SYS_NICE or `ulimit -r` of at least \(priority))" : ""
            return "SCHED_FIFO \(priority) refused: \(reason)\(hint); running at the inherited policy"
        }
    }

    /// Asks for `priority` on the calling thread, as the scheduler's loop thread does when it starts; for
    /// putting another loop (a swift-nio event loop, say) on the same footing in comparisons. Benchmarks SPI:
    /// visible outside this package only to `@_spi(Benchmarks) import Runway` (the Benchmarks package).
    @_spi(Benchmarks)
    public static func apply(_ priority: LoopThreadPriority) -> LoopThreadPriorityOutcome {
        switch priority {
        case .inherited:
            return .inherited
        case .realtime(let value):
            let status = runway_set_thread_fifo(value)
            return status == 0 ? .realtime(priority: value) : .refused(priority: value, errno: -status)
        }
    }
}
