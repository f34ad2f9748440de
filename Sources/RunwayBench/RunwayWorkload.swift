import Foundation
import Logging
import Runway
@_spi(Driver) import RunwayCore

/// An embedded app whose delegate methods all return at once: the bench measures the scheduler, not apps.
package final class BenchApp: RunwayAppDelegate {}

/// What the Runway half of a bench measured.
package struct RunwayRunResult: Sendable {
    package var events: BenchEventStatistics
    /// Registering and launching the apps and beginning every task, in seconds.
    package var setupSeconds: Double
    package var tasksBegun: Int
    /// `beginBackgroundTask` calls that returned `.invalid` (none are expected).
    package var tasksRefused: Int
    /// Wall time of the begin calls (one thread, one after the other).
    package var beginSeconds: Double
    /// The finishers' `endBackgroundTask` calls.
    package var ends: EndCalls
    /// `home` commands refused (none are expected).
    package var homeErrors: Int
    /// From the first `home` to the last expected event (or giving up).
    package var deadlineSeconds: Double
    /// False when the run gave up waiting for an expected event.
    package var finished: Bool
    package var residentBeforeTasksBytes: UInt64?
    package var residentWithTasksBytes: UInt64?
    package var peakResidentBytes: UInt64?
    package var setupLoop: LoopUtilisation?
    package var deadlineLoop: LoopUtilisation?
    /// What the loop thread got for `--realtime-priority` (`RunwayScheduler.loopPriorityOutcome`).
    package var loopPriority: LoopThreadPriorityOutcome
}

/// The workload of `BenchPlan` on a real `RunwayScheduler`.
///
/// Setup: every app is registered and launched, then every task begun (while active), each call from one
/// thread through the public API, so each hops to the loop. Deadline phase: `BenchTimeline` sends the apps
/// home at their offsets (one synchronous hop each) and, for a finisher, asks the loop to end its tasks (one
/// `execute`, in which every `endBackgroundTask` runs inline on the loop thread). The loop thread records
/// transitions (`observeTransitions`) and expiration handlers as they happen, on the loop's clock:
/// - warning: a fresh `now()` read inside the handler, against entry + budget − lead;
/// - termination: the event's `at` (the loop's reading for the wake-up that served the deadline), against
///   entry + budget;
/// - suspension: the event's `at` (the loop's reading at the start of the batch that ended the tasks), against
///   the `now()` read by the driving thread just before it sent the end request: the hop to the loop.
package struct RunwayWorkload {
    package let plan: BenchPlan
    package let progress: ProgressBar?

    package init(plan: BenchPlan, progress: ProgressBar?) {
        self.plan = plan
        self.progress = progress
    }

    package func run() async throws -> RunwayRunResult {
        let configuration = self.plan.configuration
        var logger = Logger(label: "runway.bench")
        logger.logLevel = .warning
        let scheduler = try RunwayScheduler(
            settings: SchedulerSettings(
                backgroundTimeBudget: configuration.budget,
                expirationWarningLead: configuration.warningLead,
                backgroundEntryGrace: max(.seconds(5), configuration.budget),
                terminationGrace: .seconds(1),
                overrunPolicy: .terminate,
                // `--tasks-per-app` may exceed the default TaskLimitPerApp: the bench measures, it is not hostile.
                taskLimitPerApp: max(SchedulerSettings().taskLimitPerApp, configuration.tasksPerApp)
            ),
            logger: logger,
            name: "runway-bench",
            loopPriority: configuration.realtimePriority.map { .realtime(priority: $0) } ?? .inherited,
            wakeupSpin: .microseconds(Int64(configuration.wakeupSpinMicroseconds))
        )
        let recorder = BenchRecorder(apps: configuration.apps, tasksPerApp: configuration.tasksPerApp)
        let ids = (0..<configuration.apps).map { AppID("bench.app.\($0)") }
        let indices = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        scheduler.observeTransitions { event in
            guard let index = indices[event.app] else { return }
            switch (event.to, event.cause) {
            case (.background, _):
                recorder.observations.withLock { $0.entered[index] = event.at }
            case (.suspended, .noOutstandingTasks):
                recorder.record(.suspension, of: index, at: event.at)
            case (.suspended, _):
                recorder.observations.withLock { $0.recordOther(.suspension) }
            case (.notRunning, .terminated(.budgetOverrun)):
                recorder.record(.termination, of: index, at: event.at)
            case (.notRunning, _):
                recorder.observations.withLock { $0.recordOther(.termination) }
            default:
                break
            }
        }
        let result: RunwayRunResult
        do {
            result = try await onOwnThread(named: "runway-bench") {
                try self.drive(scheduler, ids: ids, recorder: recorder)
            }
        } catch {
            await scheduler.shutdown()
            throw error
        }
        await scheduler.shutdown()
        return result
    }

    /// Runs setup and the deadline phase on the calling thread (blocking).
    private func drive(_ scheduler: RunwayScheduler, ids: [AppID], recorder: BenchRecorder) throws -> RunwayRunResult {
        let configuration = self.plan.configuration
        let tasksPerApp = configuration.tasksPerApp
        let loop = scheduler.eventLoop
        let setupStart = LoopSample.read(loop)
        let setupStartAt = loop.now()

        var applications: [RunwayApplication] = []
        applications.reserveCapacity(ids.count)
        for (index, id) in ids.enumerated() {
            applications.append(try scheduler.register(AppDescriptor(id: id), delegate: BenchApp()))
            try scheduler.perform(.launch, on: id)
            self.progress?.update("setup: apps ", done: index + 1, total: ids.count)
        }
        // The bench's own per-task array exists before the baseline, so that only the scheduler's memory counts.
        var taskIDs = [BackgroundTaskID](repeating: .invalid, count: self.plan.taskCount)
        let residentBefore = ProcessMemory.residentBytes()
        var refused = 0
        let beginStart = loop.now()
        for app in 0..<ids.count {
            for task in 0..<tasksPerApp {
                let slot = app * tasksPerApp + task
                // Runs on the loop thread; a fresh reading, so that the handlers run before it count.
                taskIDs[slot] = applications[app].beginBackgroundTask(withName: "bench") {
                    recorder.record(.warning, of: slot, at: loop.now())
                }
                if taskIDs[slot] == .invalid { refused += 1 }
            }
            self.progress?.update("setup: tasks", done: (app + 1) * tasksPerApp, total: self.plan.taskCount)
        }
        let beginSeconds = (loop.now() - beginStart).seconds
        let residentWith = ProcessMemory.residentBytes()
        let setupSeconds = (loop.now() - setupStartAt).seconds
        let setupEnd = LoopSample.read(loop)

        var timeline = BenchTimeline(now: { loop.now() })
        let start = loop.now() + .milliseconds(10)
        timeline.scheduleHomes(of: self.plan, from: start)
        var homeErrors = 0
        let waiting: () -> Void = {
            self.progress?.update("deadlines   ", done: recorder.recorded, total: self.plan.expectedEvents)
        }
        timeline.run(
            perform: { step in
                switch step {
                case .home(let app):
                    do {
                        try scheduler.perform(.home, on: ids[app])
                    } catch {
                        homeErrors += 1
                        return nil
                    }
                    // The observer recorded the entry on the loop thread before `perform` returned.
                    guard let offset = self.plan.endOffset(of: app),
                        let entry = recorder.observations.withLock({ $0.entered[app] })
                    else { return nil }
                    return (.end(app), entry + offset)
                case .end(let app):
                    // One hop per finisher: its tasks are ended on the loop thread, where `endBackgroundTask` runs
                    // inline, so that the driving thread never falls behind the plan (50,000 synchronous hops
                    // from one thread take about a second in a debug build).
                    let tasks = Array(taskIDs[(app * tasksPerApp)..<((app + 1) * tasksPerApp)])
                    let application = applications[app]
                    let requested = loop.now()
                    let warning = recorder.observations.withLock { observations in
                        observations.endRequested[app] = requested
                        return observations.entered[app].map(self.plan.warning(after:))
                    }
                    let accepted = loop.execute {
                        let start = loop.now()
                        var errors = 0
                        for task in tasks {
                            do { try application.endBackgroundTask(task) } catch { errors += 1 }
                        }
                        let spent = loop.now() - start
                        recorder.observations.withLock { observations in
                            observations.ends.calls += tasks.count
                            observations.ends.errors += errors
                            observations.ends.nanoseconds += spent.nanoseconds
                            if let warning, start >= warning { observations.ends.afterWarning += 1 }
                        }
                    }
                    if !accepted { recorder.observations.withLock { $0.ends.errors += tasks.count } }
                    return nil
                }
            },
            waiting: waiting
        )
        let finished = timeline.waitForEvents(
            self.plan.expectedEvents,
            of: self.plan,
            recorder: recorder,
            waiting: waiting
        )
        let deadlineSeconds = (loop.now() - start).seconds
        let deadlineEnd = LoopSample.read(loop)
        let observations = recorder.finish()
        self.progress?.finish()

        return RunwayRunResult(
            events: observations.analyse(self.plan, expectsSuspensions: true),
            setupSeconds: setupSeconds,
            tasksBegun: self.plan.taskCount - refused,
            tasksRefused: refused,
            beginSeconds: beginSeconds,
            ends: observations.ends,
            homeErrors: homeErrors,
            deadlineSeconds: deadlineSeconds,
            finished: finished,
            residentBeforeTasksBytes: residentBefore,
            residentWithTasksBytes: residentWith,
            peakResidentBytes: ProcessMemory.peakResidentBytes(),
            setupLoop: setupStart.flatMap { start in setupEnd.map { start.utilisation(until: $0) } },
            deadlineLoop: setupEnd.flatMap { start in deadlineEnd.map { start.utilisation(until: $0) } },
            loopPriority: scheduler.loopPriorityOutcome
        )
    }
}
