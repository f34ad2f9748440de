import Foundation
import Logging
@_spi(Processes) import Runway
@_spi(Driver) @_spi(Processes) import RunwayCore

/// What one run of `runway bench --processes` measured.
package struct ProcessRunResult: Sendable {
    package var events: ProcessBenchEvents
    /// The suspension mechanism the apps got (`signal`, `freezer`, or both names when they differ), and why the
    /// freezer was not used when `auto` fell back to signals.
    package var mechanism: String
    /// From the first registration until every child had begun its tasks and acknowledged `didBecomeActive`.
    package var setupSeconds: Double
    package var tasksBegun: Int
    /// `home` commands refused (none are expected).
    package var homeErrors: Int
    /// From the first `home` to the last expected event (or giving up).
    package var deadlineSeconds: Double
    /// False when the run gave up waiting for an expected event.
    package var finished: Bool
    package var setupLoop: LoopUtilisation?
    package var deadlineLoop: LoopUtilisation?
}

/// Why `runway bench --processes` could not run its plan (a child that did not start or did not get ready).
package struct ProcessBenchError: Error, CustomStringConvertible {
    package var description: String
}

/// The workload of `ProcessBenchPlan` on a real `RunwayScheduler` in this process, supervising one child per app
/// (`runway bench-child`, the executable at `executable`).
///
/// Setup: every app is registered and launched from one thread; the thread then polls `status()` every 20 ms until
/// every app is active, holds its tasks and has acknowledged `didBecomeActive`. Deadline phase: `BenchTimeline` sends
/// the apps home at their offsets; the children do the rest. The loop thread records, on the loop's clock:
/// - warnings: a fresh `now()` read in the message observer, just before the line is written to the app
///   (`observeMessages`), against entry + budget − lead;
/// - suspensions: the supervisor's confirmation, a fresh `now()` read when its check saw the kernel show the app
///   stopped or frozen (`observeSuspensionConfirmations`), against the core's suspension (a finisher) or the
///   budget deadline (an overrunner);
/// - terminations and kills: the `notRunning` transition's `at`, the loop turn that reaped the child, against the
///   deadline (SIGTERM of an `exits` app, SIGKILL of a `killed` one).
package struct ProcessWorkload {
    package let plan: ProcessBenchPlan
    package let executable: String
    package let progress: ProgressBar?

    package init(plan: ProcessBenchPlan, executable: String, progress: ProgressBar?) {
        self.plan = plan
        self.executable = executable
        self.progress = progress
    }

    package func run() async throws -> ProcessRunResult {
        let configuration = self.plan.configuration
        var logger = Logger(label: "runway.bench")
        logger.logLevel = .warning
        let scheduler = try RunwayScheduler(
            settings: SchedulerSettings(
                backgroundTimeBudget: configuration.budget,
                expirationWarningLead: configuration.warningLead,
                backgroundEntryGrace: max(.seconds(5), configuration.budget),
                terminationGrace: self.plan.terminationGrace,
                overrunPolicy: .suspend,
                taskLimitPerApp: max(SchedulerSettings().taskLimitPerApp, configuration.tasksPerApp)
            ),
            processOptions: ProcessOptions(suspensionMechanism: self.plan.suspension.mechanism),
            logger: logger,
            name: "runway-bench"
        )
        let interruption = BenchInterruption.install(shuttingDown: scheduler)
        defer { interruption.cancel() }
        let recorder = ProcessBenchRecorder(apps: self.plan.apps)
        let ids = (0..<self.plan.apps).map { AppID("bench.process.\($0)") }
        let indices = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        let loop = scheduler.eventLoop
        scheduler.observeTransitions { event in
            guard let index = indices[event.app] else { return }
            recorder.observations.withLock { $0.transition(event, app: index) }
        }
        scheduler.observeMessages { app, message, _ in
            guard case .backgroundTaskWillExpire(let task) = message, let index = indices[app] else { return }
            let now = loop.now()
            recorder.observations.withLock { $0.warning(task: task, app: index, at: now) }
        }
        scheduler.observeSuspensionConfirmations { app, suspended, at in
            guard suspended, let index = indices[app] else { return }
            recorder.observations.withLock { $0.confirmation(app: index, at: at) }
        }
        let result: ProcessRunResult
        do {
            result = try await onOwnThread(named: "runway-bench") {
                try self.drive(scheduler, ids: ids, recorder: recorder)
            }
        } catch {
            _ = recorder.finish()
            await scheduler.shutdown()
            throw error
        }
        await scheduler.shutdown()
        return result
    }

    /// Runs setup and the deadline phase on the calling thread (blocking).
    private func drive(
        _ scheduler: RunwayScheduler,
        ids: [AppID],
        recorder: ProcessBenchRecorder
    ) throws -> ProcessRunResult {
        let loop = scheduler.eventLoop
        let setupStart = LoopSample.read(loop)
        let setupStartAt = loop.now()
        for (index, id) in ids.enumerated() {
            let spec = ProcessSpec(
                arguments: [self.executable] + self.plan.childArguments(of: index),
                speaksProtocol: true
            )
            var descriptor = AppDescriptor(
                id: id,
                kind: .process(spec),
                exitsOnSuspend: self.plan.exitsOnSuspend(index)
            )
            descriptor.overrunPolicy = self.plan.overrunPolicy(index)
            // The exits role holds tasks into the background and exits when they end: the drain style (E2). The
            // default immediate style (E1) would refuse its tasks and never reach a deadline.
            if descriptor.exitsOnSuspend { descriptor.exitsOnSuspendStyle = .drain }
            try scheduler.register(process: descriptor)
            try scheduler.perform(.launch, on: id)
            self.progress?.update("setup: launch", done: index + 1, total: ids.count)
        }
        try self.waitUntilReady(scheduler, ids: ids)
        let setupSeconds = (loop.now() - setupStartAt).seconds
        let setupEnd = LoopSample.read(loop)
        let mechanism = Self.mechanism(scheduler.processes())

        var timeline = BenchTimeline(now: { loop.now() })
        let start = loop.now() + .milliseconds(10)
        timeline.scheduleHomes(of: self.plan.plan, from: start)
        var homeErrors = 0
        let expected = self.plan.expectedEvents
        let waiting: () -> Void = {
            self.progress?.update("deadlines   ", done: recorder.recorded, total: expected)
        }
        timeline.run(
            perform: { step in
                guard case .home(let app) = step else { return nil }
                do { try scheduler.perform(.home, on: ids[app]) } catch { homeErrors += 1 }
                return nil
            },
            waiting: waiting
        )
        let finished = self.waitForEvents(recorder: recorder, now: { loop.now() }, waiting: waiting)
        let deadlineSeconds = (loop.now() - start).seconds
        let deadlineEnd = LoopSample.read(loop)
        let observations = recorder.finish()
        self.progress?.finish()
        return ProcessRunResult(
            events: observations.analyse(self.plan),
            mechanism: mechanism,
            setupSeconds: setupSeconds,
            tasksBegun: ids.count * self.plan.configuration.tasksPerApp,
            homeErrors: homeErrors,
            deadlineSeconds: deadlineSeconds,
            finished: finished,
            setupLoop: setupStart.flatMap { start in setupEnd.map { start.utilisation(until: $0) } },
            deadlineLoop: setupEnd.flatMap { start in deadlineEnd.map { start.utilisation(until: $0) } }
        )
    }

    /// Polls `status()` every 20 ms until every app is active, holds its tasks and has no message in flight (it
    /// acknowledged `didBecomeActive` after its begins). Throws when an app stopped running, or after 30 s plus
    /// 0.2 s per app, naming the apps that are not ready.
    private func waitUntilReady(_ scheduler: RunwayScheduler, ids: [AppID]) throws {
        let loop = scheduler.eventLoop
        let wanted = Set(ids)
        let tasks = self.plan.configuration.tasksPerApp
        let giveUpAt = loop.now() + .seconds(30) + .milliseconds(200 * Int64(ids.count))
        while true {
            let statuses = scheduler.status().filter { wanted.contains($0.app) }
            let waiting = statuses.filter {
                $0.state != .active || $0.tasks.count != tasks || $0.messageInFlight != nil
            }
            self.progress?.update("setup: tasks ", done: ids.count - waiting.count, total: ids.count)
            if waiting.isEmpty && statuses.count == ids.count { return }
            let stopped = waiting.filter { $0.state == .notRunning && $0.lastTermination != nil }
            if !stopped.isEmpty || loop.now() >= giveUpAt {
                let listed = (stopped.isEmpty ? waiting : stopped).prefix(5).map { status in
                    "\(status.app): \(status.state), \(status.tasks.count) of \(tasks) tasks"
                        + (status.lastTermination.map { ", ended: \($0)" } ?? "")
                        + (status.lastExit.map { ", exit \($0)" } ?? "")
                }
                throw ProcessBenchError(
                    description: "\(stopped.isEmpty ? "not ready in time" : "a child stopped before the run"): "
                        + listed.joined(separator: "; ") + " (child: \(self.executable) bench-child)"
                )
            }
            Thread.sleep(forTimeInterval: 0.020)
        }
    }

    /// After the homes: waits until every planned event is recorded and the last app's last deadline has passed,
    /// polling every 5 ms, or gives up max(2 s, budget) after that deadline (the missing events are lost).
    private func waitForEvents(
        recorder: ProcessBenchRecorder,
        now: () -> Instant,
        waiting: () -> Void
    ) -> Bool {
        let configuration = self.plan.configuration
        let lastEntry = recorder.observations.withLock { $0.entered.compactMap { $0 }.max() } ?? now()
        let lastDue = self.plan.plan.deadline(after: lastEntry)
        let giveUpAt = lastDue + max(.seconds(2), configuration.budget)
        while recorder.recorded < self.plan.expectedEvents || now() < lastDue {
            guard now() < giveUpAt else { return false }
            waiting()
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }

    /// `signal`, `freezer`, both, and the reason the freezer was not used, from the supervisor's status.
    private static func mechanism(_ processes: [AppID: ProcessStatus]) -> String {
        let names = Set(processes.values.compactMap { $0.mechanism?.rawValue }).sorted()
        let reasons = Set(processes.values.compactMap(\.freezerUnavailableReason)).sorted()
        let text = names.isEmpty ? "unknown" : names.joined(separator: ", ")
        return reasons.isEmpty ? text : "\(text) (freezer unavailable: \(reasons.joined(separator: "; ")))"
    }
}
