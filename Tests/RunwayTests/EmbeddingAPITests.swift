import Logging
import Runway
@_spi(Driver) import RunwayCore
import RunwayLocking
import Testing

/// The embedding API under Swift 6's strict concurrency: the expiration handler is given its task's id,
/// one verb (`perform`) for commands and user actions, transitions that report the user action asked, and the
/// log level of an `alreadyEnded` refusal. On the real loop, with real delegates.
@Suite struct EmbeddingAPITests {
    let mail: AppID = "com.example.mail"

    /// UIKit's pattern, `var task` assigned after the call and read by the handler, does not compile here ("reference
    /// to captured var 'task' in concurrently-executing code"). The id handed to the handler replaces it: this test
    /// compiles only because nothing mutable is captured, and passes only if the id is the task's own.
    @Test func B4_theExpirationHandlerEndsItsOwnTaskWithTheIDItIsGiven() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let begun = Recorder<BackgroundTaskID>()
        let handled = Recorder<BackgroundTaskID>()
        let delegate = RecordingDelegate { application in
            let task = application.beginBackgroundTask(withName: "send-outbox") { task in
                handled.append(task)
                try? application.endBackgroundTask(task)  // the last task: the app is suspended now
            }
            begun.append(task)
        }
        try scheduler.register(AppDescriptor(id: self.mail), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        let background = try #require(await watcher.first { $0.to == .background })
        let end = try #require(await watcher.first { $0.to == .suspended || $0.to == .notRunning })
        // Ended by its handler at the warning, so suspended with no task left, before the deadline (not killed).
        #expect(end.to == .suspended)
        #expect(end.cause == .noOutstandingTasks)
        #expect(end.at < background.at + shortSettings.backgroundTimeBudget)
        #expect(handled.values.count == 1)
        #expect(handled.values == begun.values)
        #expect(begun.values.allSatisfy { $0 != .invalid })
        await scheduler.shutdown()
    }

    /// A task begun from the app's work after the warning has its handler called at once, on the loop thread,
    /// before `beginBackgroundTask` has returned: a handler that read a variable assigned from the return value
    /// would see nothing yet. With the id, it ends its task all the same.
    @Test func B4_aHandlerCalledBeforeBeginReturnsStillEndsItsTask() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let first = Recorder<BackgroundTaskID>()
        let late = Recorder<String>()
        let delegate = RecordingDelegate { application in
            // Holds the app in the background; its handler, at the warning, starts the late task from the app's work.
            let holder = application.beginBackgroundTask(withName: "holder") { _ in
                application.executor.submit {
                    let returned = RunwayLock<BackgroundTaskID?>(nil)
                    let task = application.beginBackgroundTask(withName: "late") { task in
                        // Called inside the begin call: nothing has been returned yet.
                        late.append("handler \(task) before return: \(returned.withLock { $0 == nil })")
                        try? application.endBackgroundTask(task)
                    }
                    returned.withLock { $0 = task }
                    late.append("returned \(task)")
                    // Then the holder: the app has no task left and is suspended.
                    if let holder = first.values.first { try? application.endBackgroundTask(holder) }
                }
            }
            first.append(holder)
        }
        try scheduler.register(AppDescriptor(id: self.mail), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        let end = try #require(await watcher.first { $0.to == .suspended || $0.to == .notRunning })
        #expect(end.to == .suspended)
        #expect(end.cause == .noOutstandingTasks)
        let holder = try #require(first.values.first)
        let lateTask = BackgroundTaskID(rawValue: holder.rawValue + 1)
        #expect(late.values == ["handler \(lateTask) before return: true", "returned \(lateTask)"])
        await scheduler.shutdown()
    }

    /// One verb: `perform(_:on:)` takes a command or a user action; the transition reports both the command
    /// (`cause`) and the user action asked (`userAction`), and a plain command reports no user action.
    @Test func L8_performTakesCommandsAndUserActionsAndEventsReportTheActionAsked() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        try scheduler.register(AppDescriptor(id: self.mail), delegate: RecordingDelegate())
        try scheduler.perform(.launch, on: self.mail)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        #expect(await watcher.first { $0.to == .suspended } != nil)
        try scheduler.perform(.enterForeground, on: self.mail)
        #expect(await watcher.first { $0.from == .suspended && $0.to == .active } != nil)
        try scheduler.perform(.lock, on: self.mail)
        #expect(await watcher.first { $0.from == .active && $0.to == .inactive } != nil)
        let summary = watcher.events.map { "\($0.from)->\($0.to) \($0.cause) \($0.userAction.map(\.rawValue) ?? "-")" }
        #expect(
            summary == [
                "notRunning->inactive command(launch) -",
                "inactive->active command(launch) -",
                "active->background command(enterBackground) home",
                "background->suspended noOutstandingTasks -",
                "suspended->active command(enterForeground) -",
                "active->inactive command(resignActive) lock",
            ]
        )
        // The batch form: one refusal (an unknown app) does not stop the others.
        let refusals = scheduler.perform(.terminate, onEach: ["com.example.unknown", self.mail])
        #expect(refusals.keys.sorted { $0.bundleIdentifier < $1.bundleIdentifier } == ["com.example.unknown"])
        #expect(refusals["com.example.unknown"]?.code == .unknownApp)
        #expect(await watcher.first { $0.to == .notRunning } != nil)
        await scheduler.shutdown()
    }

    /// The deprecated `send(_:to:)` still compiles and forwards to `perform(_:on:)`.
    @available(*, deprecated, message: "exercises the deprecated shims")
    @Test func theDeprecatedSendForwardsToPerform() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        try scheduler.register(AppDescriptor(id: self.mail), delegate: RecordingDelegate())
        try scheduler.send(.launch, to: self.mail)
        #expect(await watcher.first { $0.to == .active } != nil)
        #expect(scheduler.send(.terminate, toEach: [self.mail]).isEmpty)
        #expect(await watcher.first { $0.to == .notRunning }?.cause == .terminated(.requested))
        await scheduler.shutdown()
    }

    /// Work that outlives its task (here: the handler ended it first) gets `alreadyEnded`; the scheduler logs that
    /// refusal at debug level, not info, so that an app doing this on every run does not fill the info log.
    @Test func B8_alreadyEndedIsLoggedAtDebugOnly() async throws {
        let log = Recorder<String>()
        var logger = Logger.recording(log)
        logger.logLevel = .info
        let scheduler = try RunwayScheduler(settings: shortSettings, logger: logger)
        let watcher = TransitionWatcher(scheduler)
        let refusals = Recorder<SchedulerError>()
        let delegate = RecordingDelegate { application in
            let task = application.beginBackgroundTask(withName: "send-outbox") { task in
                try? application.endBackgroundTask(task)
            }
            application.executor.submit {
                // Ends the task after its handler did: the work outlived its task.
                while application.state == .background { try? await Task.sleep(for: .milliseconds(5)) }
                do throws(SchedulerError) { try application.endBackgroundTask(task) } catch { refusals.append(error) }
            }
        }
        try scheduler.register(AppDescriptor(id: self.mail), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        #expect(await watcher.first { $0.to == .suspended } != nil)
        // Suspended: the executor holds new work but not the running loop above, which now ends its task.
        #expect(await eventually { !refusals.values.isEmpty })
        #expect(refusals.values.map(\.code) == [.alreadyEnded])
        // Another refusal (a task id never issued) is still logged at info.
        let application = try scheduler.register(AppDescriptor(id: "com.example.other"), delegate: RecordingDelegate())
        #expect(throws: SchedulerError.self) { try application.endBackgroundTask(BackgroundTaskID(rawValue: 999)) }
        await scheduler.shutdown()
        let failures = log.values.filter { $0.contains("endBackgroundTask failed") }
        #expect(failures.count == 1)
        #expect(failures.allSatisfy { $0.contains("unknownTask") })
    }
}
