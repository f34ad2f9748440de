// The event-loop edge: one libuv loop on its own pthread, reachable from any thread.
//
// Design
// - `EventLoopThread` owns a `uv_loop_t` and the one thread that runs it. Other threads reach the loop only
//   through `execute`, which appends to a mutex-protected inbox and wakes the loop with `uv_async_send`
//   (the only libuv call that is safe off the loop thread). The loop drains the whole inbox per wake-up.
// - Time: instants are nanoseconds since the loop's origin, the CLOCK_MONOTONIC reading taken in `init`.
//   The loop reads the clock once per turn and exposes that reading as `turnNow`: an inbox drain or a wake-up
//   reads it when it starts, any other callback the first time it asks; a `uv_prepare` and a `uv_check` handle
//   mark it stale before the loop blocks and after each round of I/O callbacks. libuv's own millisecond clock
//   (`uv_now`) and timers are not used for deadlines.
// - Wake-up: a single timerfd (CLOCK_MONOTONIC, absolute, nanosecond resolution) watched by a `uv_poll_t`.
//   The scheduler keeps its deadline queue itself and arms only its earliest deadline through `setWakeup`.
//   The timerfd is never read: the clock says the armed time has passed, and the `timerfd_settime` that re-arms or
//   disarms it after the firing clears the expiry, so a wake-up costs `epoll_wait` and `timerfd_settime` only.
//   timerfd expiry is not subject to the thread's timer slack (unlike epoll_wait timeouts), so a wake-up is
//   late only by interrupt-to-thread latency: measured p50 8.5 us, p99 25-60 us on a shared 2-core VM
//   (`WakeupLatenessMeasurement`); it is never early. At the normal policy a woken thread can also wait
//   behind other runnable threads for milliseconds; `LoopThreadPriority.realtime` (SCHED_FIFO) removes that.
//
// Invariants
// - Only the loop thread calls libuv, except `uv_async_send`, made under the inbox lock while the inbox is
//   open (see `LoopHandles`).
// - Loop-thread state (`LoopThreadState`) is touched only on the loop thread; public entry points to it
//   check `precondition(inEventLoop)`.
// - Work accepted by `execute` runs exactly once, in acceptance order, on the loop thread, before
//   `shutdown` returns. Work added while a batch runs waits for the next batch.
// - A wake-up callback never receives an instant earlier than the deadline it was armed for.
// - After `shutdown` returns, the thread has exited and nothing of this loop runs again.

import CLibUV
@_spi(Benchmarks) import RunwayCore
import RunwayLocking
import Synchronization

/// A libuv event loop running on its own thread, with a cross-thread inbox and a nanosecond wake-up.
///
/// Threading: `execute`, `now()`, `inEventLoop`, `name` and `shutdown()` may be called from any thread
/// (`shutdown()` from any thread but the loop's own). Everything else (`turnNow`, `setWakeup(at:)`,
/// `wakeupDeadline`, `onWakeup`) is loop thread only and traps elsewhere.
///
/// Time: every `Instant` is nanoseconds of CLOCK_MONOTONIC since this loop's origin (the reading taken in
/// `init`), so `Instant.origin` is when the loop was created. Instants of two loops must not be mixed.
///
/// - Note: The loop thread holds a strong reference to this object until `shutdown()` joins it, so a loop
///   that is never shut down runs (idle, in `epoll_wait`) until the process exits.
/// - Note: Linux only (timerfd, prctl).
package final class EventLoopThread: Sendable {
    /// The default bound of the inbox: this many accepted, not yet drained work items.
    package static let defaultInboxCapacity = 65_536

    /// The thread's name (the kernel keeps the first 15 bytes), also used in error and trap messages.
    package let name: String
    /// The scheduling policy the loop thread asks for when it starts (`priorityOutcome` says what it got).
    package let priority: LoopThreadPriority
    /// How long before a wake-up's deadline the timerfd is armed; the loop spins on the clock for the rest.
    package let wakeupSpinNanoseconds: UInt64
    /// CLOCK_MONOTONIC at `init`, in nanoseconds: the origin of this loop's instants.
    let originNanoseconds: UInt64
    package let handles: LoopHandles
    let inbox: RunwayLock<Inbox>
    let loopState: LoopThreadState
    /// `pthread_self()` of the loop thread while it runs, 0 before and after. Written only by the loop
    /// thread, so a thread reading its own id here is the loop thread and no other thread can see its id.
    let loopThreadID: Atomic<UInt>
    let lifecycle: RunwayLock<Lifecycle>

    enum Lifecycle {
        case starting
        case running(pthread_t)
        case joined
    }

    /// Creates the loop and starts its thread; returns once the thread is created (it may not be inside
    /// `uv_run` yet, but work sent with `execute` from now on will run).
    ///
    /// - Parameters:
    ///   - name: Names the thread and appears in errors and traps.
    ///   - priority: The scheduling policy the loop thread asks for before it enters the loop; see
    ///     `priorityOutcome` for what it got.
    ///   - wakeupSpin: Arm the timerfd this long before each wake-up's deadline and spin on the clock for the rest
    ///     (at most 1 ms): wake-ups are about that much less late, for up to that much CPU each. Zero: no spin.
    ///   - inboxCapacity: The most accepted, not yet drained `execute` items; see `execute(_:)`.
    ///   - onWakeup: Called on the loop thread with that batch's clock reading when the wake-up fires;
    ///     replaceable later through `onWakeup` (loop thread only).
    /// - Throws: `EventLoopError` when libuv, the timerfd or the thread cannot be created, `invalidPriority` for a
    ///   real-time priority outside `LoopLimits.realtimePriorities`, or `invalidWakeupSpin` for a spin outside
    ///   0 ... `LoopLimits.maximumWakeupSpin`; nothing leaks.
    package init(
        name: String,
        priority: LoopThreadPriority = .inherited,
        wakeupSpin: TimeSpan = .zero,
        inboxCapacity: Int = EventLoopThread.defaultInboxCapacity,
        onWakeup: @escaping @Sendable (Instant) -> Void = { _ in }
    ) throws(EventLoopError) {
        precondition(inboxCapacity > 0, "inboxCapacity must be positive: \(inboxCapacity)")
        if case .realtime(let value) = priority, !LoopThreadPriority.realtimePriorities.contains(value) {
            let range = LoopThreadPriority.realtimePriorities
            throw EventLoopError(
                .invalidPriority,
                loopName: name,
                status: -EINVAL,
                detail: "real-time priority \(value) is outside \(range.lowerBound)...\(range.upperBound)"
            )
        }
        guard wakeupSpin >= .zero, wakeupSpin <= LoopLimits.maximumWakeupSpin else {
            throw EventLoopError(
                .invalidWakeupSpin,
                loopName: name,
                status: -EINVAL,
                detail: "wake-up spin \(wakeupSpin) is outside 0 ... \(LoopLimits.maximumWakeupSpin)"
            )
        }
        self.name = name
        self.priority = priority
        self.wakeupSpinNanoseconds = UInt64(wakeupSpin.nanoseconds)
        self.originNanoseconds = runway_monotonic_nanoseconds()
        self.handles = try LoopHandles.make(
            loopName: name,
            inboxSignalled: { handle in
                EventLoopThread.owner(of: handle?.pointee.data).inboxSignalled()
            },
            timerReadable: { handle, status, _ in
                EventLoopThread.owner(of: handle?.pointee.data).timerReadable(status: status)
            },
            turnEndedBeforePoll: { handle in
                EventLoopThread.owner(of: handle?.pointee.data).loopState.turnIsCurrent = false
            },
            turnEndedAfterIO: { handle in
                EventLoopThread.owner(of: handle?.pointee.data).loopState.turnIsCurrent = false
            }
        )
        self.inbox = RunwayLock(Inbox(capacity: inboxCapacity))
        self.loopState = LoopThreadState(turnNow: .origin, onWakeup: onWakeup)
        self.loopThreadID = Atomic(0)
        self.lifecycle = RunwayLock(.starting)
        // Unretained: the thread's own retain (below) outlives every callback.
        self.handles.setOwner(Unmanaged.passUnretained(self).toOpaque())

        let retained = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let status = pthread_create(
            &thread,
            nil,
            { argument in
                guard let argument else { preconditionFailure("EventLoopThread started without its owner") }
                Unmanaged<EventLoopThread>.fromOpaque(argument).takeRetainedValue().runLoopThread()
                return nil
            },
            retained.toOpaque()
        )
        guard status == 0 else {
            retained.release()
            self.lifecycle.withLock { $0 = .joined }
            self.inbox.withLock { $0.isClosed = true }
            self.handles.closeAllAndDestroy()
            throw EventLoopError(.threadStartFailed, loopName: name, status: -status)
        }
        self.lifecycle.withLock { $0 = .running(thread) }
    }

    /// True when called on this loop's thread.
    package var inEventLoop: Bool {
        pthread_equal(pthread_self(), self.loopThreadID.load(ordering: .acquiring)) != 0
    }

    /// Reads CLOCK_MONOTONIC now (one `clock_gettime`, about 20-30 ns). Any thread.
    ///
    /// - Returns: Nanoseconds since this loop's origin.
    package func now() -> Instant {
        let reading = runway_monotonic_nanoseconds()
        let origin = self.originNanoseconds
        return Instant(nanosecondsSinceOrigin: reading > origin ? reading - origin : 0)
    }

    /// The clock reading of the current loop turn. Loop thread only.
    ///
    /// One reading per turn: an inbox drain and a wake-up take theirs when they start; any other libuv callback
    /// (a child's exit, a pipe or socket read, a libuv timer, a signal) takes one the first time it asks. The
    /// reading goes stale before the loop blocks for I/O and after each round of I/O callbacks, so no callback
    /// is handed the time of an earlier turn. Never earlier than the previous reading. Use it so that every
    /// decision of one turn sees the same time; call `now()` for a fresh reading.
    package var turnNow: Instant {
        self.preconditionInEventLoop("turnNow")
        if !self.loopState.turnIsCurrent {
            self.loopState.turnNow = max(self.now(), self.loopState.turnNow)
            self.loopState.turnIsCurrent = true
        }
        return self.loopState.turnNow
    }

    /// What the loop thread got when it asked for `priority`, before it entered the loop. Loop thread only.
    package var priorityOutcome: LoopThreadPriorityOutcome {
        self.preconditionInEventLoop("priorityOutcome")
        return self.loopState.priorityOutcome
    }

    /// Stops the loop and joins its thread. Idempotent; any thread except the loop thread (where it traps,
    /// as the thread would join itself). Concurrent callers all return after the join.
    ///
    /// Work accepted by `execute` before the call runs before the loop stops; `execute` returns false from
    /// the moment `shutdown` starts (also for work enqueued by that final batch). Then every handle on the
    /// loop is closed, `uv_loop_close` succeeds (trap otherwise), the timerfd is closed and the thread
    /// exits. After `shutdown` returns, no callback of this loop runs again.
    package func shutdown() {
        precondition(!self.inEventLoop, "shutdown() called on the loop thread of '\(self.name)'; it would join itself")
        // Held across the join so that a concurrent caller waits for it instead of returning early.
        self.lifecycle.withLock { lifecycle in
            guard case .running(let thread) = lifecycle else { return }
            self.inbox.withLock { inbox in
                inbox.isClosed = true
                let status = uv_async_send(self.handles.async)
                precondition(status == 0, "uv_async_send failed in shutdown of '\(self.name)': status=\(status)")
            }
            let status = pthread_join(thread, nil)
            precondition(status == 0, "pthread_join failed for '\(self.name)': errno=\(status)")
            lifecycle = .joined
        }
    }

    /// The loop thread's body: runs the loop until `tearDown` has closed every handle, then frees it.
    private func runLoopThread() {
        self.loopThreadID.store(pthread_self(), ordering: .releasing)
        _ = self.name.withCString { runway_set_thread_name($0) }
        self.loopState.priorityOutcome = LoopThreadPriorityOutcome.apply(self.priority)
        self.loopState.turnNow = self.now()
        _ = uv_run(self.handles.loop, UV_RUN_DEFAULT)
        self.handles.destroy()
        self.loopThreadID.store(0, ordering: .releasing)
    }

    /// Runs on the loop thread after the final inbox drain: closes every handle so that `uv_run` returns.
    func tearDown() {
        self.loopState.isTornDown = true
        self.loopState.wakeupDeadline = nil
        // Break reference cycles through captured closures (a handler often captures this loop).
        self.loopState.onWakeup = { _ in }
        self.loopState.spareBatch = []
        self.handles.closeAll()
    }

    /// Traps unless on the loop thread; `member` is only formatted when trapping.
    func preconditionInEventLoop(
        _ member: @autoclosure () -> String,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        precondition(
            self.inEventLoop,
            "\(member()) is loop thread only: loop '\(self.name)', caller thread \(pthread_self())",
            file: file,
            line: line
        )
    }

    /// The `EventLoopThread` a handle's `data` points to (set by `LoopHandles.setOwner`).
    static func owner(of data: UnsafeMutableRawPointer?) -> EventLoopThread {
        guard let data else { preconditionFailure("libuv handle without an EventLoopThread in data") }
        return Unmanaged<EventLoopThread>.fromOpaque(data).takeUnretainedValue()
    }
}
