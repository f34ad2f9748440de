import Foundation
@_spi(Benchmarks) import RunwayCore

/// One timed step of the deadline phase, the same for Runway and for swift-nio.
package enum BenchStep: Sendable {
    /// App `index` enters the background (Runway: `UserAction.home`; NIO: its deadlines are scheduled).
    case home(Int)
    /// Finisher `index` ends all its tasks (Runway: `endBackgroundTask` each; NIO: `Scheduled.cancel()` each).
    case end(Int)
}

/// Plays the deadline phase's steps in time order on the calling thread: sleeps until a step is due, runs it,
/// and schedules the step it leads to (a finisher's `end` after its `home`).
///
/// Steps run late when the thread is busy or descheduled; that is harmless because lateness is measured
/// against what the scheduler was asked to do, not against this timeline (a finisher's suspension against
/// the instant its last `endBackgroundTask` was called).
package struct BenchTimeline {
    private var queue = DeadlineQueue<BenchStep>()

    /// The clock the steps' instants are on (the Runway loop's, or NIO's uptime).
    package let now: () -> Instant

    package init(now: @escaping () -> Instant) {
        self.now = now
    }

    package mutating func schedule(_ step: BenchStep, at instant: Instant) {
        _ = self.queue.insert(step, at: instant)
    }

    /// Schedules every app's `home` at `start` + its offset into the plan's duration.
    package mutating func scheduleHomes(of plan: BenchPlan, from start: Instant) {
        for app in 0..<plan.configuration.apps {
            self.schedule(.home(app), at: start + plan.homeOffset(of: app))
        }
    }

    /// Runs every step, including those scheduled by `perform`, then returns.
    ///
    /// - Parameters:
    ///   - perform: Runs one step; returns a follow-up step and when it is due, or nil.
    ///   - waiting: Called at least every 20 ms while the thread waits (for the progress bar).
    package mutating func run(perform: (BenchStep) throws -> (BenchStep, Instant)?, waiting: () -> Void) rethrows {
        while let due = self.queue.earliestDeadline {
            let now = self.now()
            guard let entry = self.queue.popDue(now: now) else {
                waiting()
                Thread.sleep(forTimeInterval: min((due - now).seconds, 0.020))
                continue
            }
            if let (next, at) = try perform(entry.payload) {
                self.schedule(next, at: at)
            }
        }
    }

    /// After `run`: waits until `expected` events are recorded and the last app's budget deadline has passed,
    /// polling every 5 ms, or gives up max(2 s, budget) after that deadline (the missing events are lost).
    ///
    /// - Returns: False if it gave up.
    package func waitForEvents(
        _ expected: Int,
        of plan: BenchPlan,
        recorder: BenchRecorder,
        waiting: () -> Void
    ) -> Bool {
        let lastEntry = recorder.observations.withLock { $0.entered.compactMap { $0 }.max() } ?? self.now()
        let lastDeadline = plan.deadline(after: lastEntry)
        let giveUpAt = lastDeadline + max(.seconds(2), plan.configuration.budget)
        while recorder.recorded < expected || self.now() < lastDeadline {
            guard self.now() < giveUpAt else { return false }
            waiting()
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }
}

/// Runs `body` on a new thread of its own and returns its result: the workloads make blocking calls for
/// seconds (synchronous hops to a loop, sleeps), which must not hold a thread of the cooperative pool, where
/// the delegates of the embedded apps run.
func onOwnThread<T: Sendable>(named name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.name = name
        thread.start()
    }
}
