import Foundation
import NIOCore
import NIOPosix
@_spi(Benchmarks) import Runway
import RunwayCore
@_spi(Benchmarks) import RunwayLoop

/// What the swift-nio half of `runway bench --compare nio` measured.
package struct NIORunResult: Sendable {
    package var events: BenchEventStatistics
    package var scheduled: Int
    package var cancelled: Int
    package var deadlineSeconds: Double
    package var finished: Bool
    /// Finishers whose cancel request reached NIO's loop at or after their expiration warning: the half fell
    /// behind its plan (its loop was busy), as Runway's `requestsAfterWarning`.
    package var requestsAfterWarning: Int
    /// What NIO's loop thread got for `--realtime-priority`, asked for the same way as Runway's.
    package var loopPriority: LoopThreadPriorityOutcome
}

/// The same deadlines as `RunwayWorkload`, on swift-nio's `scheduleTask(deadline:)`, on the one loop of a
/// `MultiThreadedEventLoopGroup(numberOfThreads: 1)`.
///
/// NIO has no background tasks sharing a budget, so each task is one scheduled task. At an app's `home` step
/// one `submit` (a hop to the loop, waited for, like Runway's `home`) reads the entry instant on the loop
/// and schedules, per task, a task at entry + budget − lead (the warning) and, for an overrunner, one more at
/// entry + budget (the termination). A finisher's `end` step cancels its tasks (`Scheduled.cancel()`) in one
/// `execute`, not waited for. Lateness = `NIODeadline.now()` read inside the scheduled task − its deadline. There
/// is no suspension.
package struct NIOWorkload {
    package let plan: BenchPlan
    package let progress: ProgressBar?
    /// Blocks NIO's loop thread for `duration` from `offset` after the deadline phase starts; nil for none. A test
    /// seam: a loop that really falls behind its plan, to check that the comparison says so.
    package var stall: (offset: TimeSpan, duration: TimeSpan)?

    package init(plan: BenchPlan, progress: ProgressBar?, stall: (offset: TimeSpan, duration: TimeSpan)? = nil) {
        self.plan = plan
        self.progress = progress
        self.stall = stall
    }

    package func run() async throws -> NIORunResult {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let result: Result<NIORunResult, any Error>
        do {
            result = .success(try await onOwnThread(named: "nio-bench") { try self.drive(loop) })
        } catch {
            result = .failure(error)
        }
        try await group.shutdownGracefully()
        return try result.get()
    }

    /// NIO's clock (CLOCK_MONOTONIC uptime) as an `Instant`.
    private static func now() -> Instant {
        Instant(nanosecondsSinceOrigin: NIODeadline.now().uptimeNanoseconds)
    }

    private static func deadline(_ instant: Instant) -> NIODeadline {
        .uptimeNanoseconds(instant.nanosecondsSinceOrigin)
    }

    private func drive(_ loop: any EventLoop) throws -> NIORunResult {
        let configuration = self.plan.configuration
        let plan = self.plan
        let tasksPerApp = configuration.tasksPerApp
        let recorder = BenchRecorder(apps: configuration.apps, tasksPerApp: tasksPerApp)
        let apps = configuration.apps
        // The same policy as Runway's loop thread, so that both halves are measured on the same footing.
        let priority: LoopThreadPriority = configuration.realtimePriority.map { .realtime(priority: $0) } ?? .inherited
        let loopPriority = try loop.submit { LoopThreadPriorityOutcome.apply(priority) }.wait()
        // A finisher's scheduled tasks, until its `end` cancels them. Loop thread only.
        let pending = try loop.submit {
            NIOLoopBoundBox([[Scheduled<Void>]](repeating: [], count: apps), eventLoop: loop)
        }.wait()

        var timeline = BenchTimeline(now: Self.now)
        let start = Self.now() + .milliseconds(10)
        timeline.scheduleHomes(of: self.plan, from: start)
        if let stall = self.stall {
            loop.scheduleTask(deadline: Self.deadline(start + stall.offset)) {
                Thread.sleep(forTimeInterval: stall.duration.seconds)
            }
        }
        var scheduled = 0
        var cancelled = 0
        let expected = plan.expectedWarnings + plan.expectedTerminations
        let waiting: () -> Void = { self.progress?.update("swift-nio   ", done: recorder.recorded, total: expected) }
        try timeline.run(
            perform: { step in
                switch step {
                case .home(let app):
                    let isFinisher = plan.endPoints[app] != nil
                    let entry = try loop.submit { () -> Instant in
                        let entry = Self.now()
                        var tasks: [Scheduled<Void>] = []
                        for task in 0..<tasksPerApp {
                            let slot = app * tasksPerApp + task
                            let scheduledTask = loop.scheduleTask(deadline: Self.deadline(plan.warning(after: entry))) {
                                recorder.record(.warning, of: slot, at: Self.now())
                            }
                            if isFinisher { tasks.append(scheduledTask) }
                        }
                        if isFinisher {
                            pending.value[app] = tasks
                        } else {
                            loop.scheduleTask(deadline: Self.deadline(plan.deadline(after: entry))) {
                                recorder.record(.termination, of: app, at: Self.now())
                            }
                        }
                        return entry
                    }.wait()
                    scheduled += tasksPerApp + (isFinisher ? 0 : 1)
                    recorder.observations.withLock { $0.entered[app] = entry }
                    guard let offset = plan.endOffset(of: app) else { return nil }
                    return (.end(app), entry + offset)
                case .end(let app):
                    // Like Runway's end request: one hop, not waited for, and counted when it reaches the loop
                    // at or after the app's warning.
                    cancelled += plan.configuration.tasksPerApp
                    let warning = recorder.observations.withLock { $0.entered[app].map(plan.warning(after:)) }
                    loop.execute {
                        let start = Self.now()
                        for task in pending.value[app] { task.cancel() }
                        pending.value[app] = []
                        if let warning, start >= warning {
                            recorder.observations.withLock { $0.ends.afterWarning += 1 }
                        }
                    }
                    return nil
                }
            },
            waiting: waiting
        )
        let finished = timeline.waitForEvents(
            expected,
            of: self.plan,
            recorder: recorder,
            waiting: waiting
        )
        let deadlineSeconds = (Self.now() - start).seconds
        let observations = recorder.finish()
        self.progress?.finish()
        return NIORunResult(
            events: observations.analyse(plan, expectsSuspensions: false),
            scheduled: scheduled,
            cancelled: cancelled,
            deadlineSeconds: deadlineSeconds,
            finished: finished,
            requestsAfterWarning: observations.ends.afterWarning,
            loopPriority: loopPriority
        )
    }
}
