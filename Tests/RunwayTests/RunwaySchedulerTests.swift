import Logging
import MetricsTestKit
@_spi(Processes) import Runway
@_spi(Driver) @_spi(Processes) import RunwayCore
import ServiceLifecycle
import Synchronization
import Testing

/// The scheduler on the real libuv loop, end to end. Budgets are short (500 ms);
/// waits are bounded by generous timeouts and assertions are about order, causes and "never early".
@Suite struct RunwaySchedulerTests {
    let mail: AppID = "com.example.mail"

    @Test func S2_homeSuspendsOnTheRealLoop() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let delegate = RecordingDelegate()
        try scheduler.register(AppDescriptor(id: self.mail), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        let suspended = await watcher.first { $0.to == .suspended }
        #expect(suspended?.cause == .noOutstandingTasks)
        #expect(
            delegate.messages == ["didFinishLaunching", "didBecomeActive", "willResignActive", "didEnterBackground"]
        )
        await scheduler.shutdown()
    }

    @Test func L2_observeMessagesReportsEverySentMessageInOrder() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let sent = Recorder<String>()
        scheduler.observeMessages { app, message, _ in sent.append("\(app) \(message)") }
        try scheduler.register(AppDescriptor(id: self.mail), delegate: RecordingDelegate())
        try scheduler.perform(.launch, on: self.mail)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        #expect(await watcher.first { $0.to == .suspended } != nil)
        #expect(
            sent.values
                == ["didFinishLaunching", "didBecomeActive", "willResignActive", "didEnterBackground"].map {
                    "\(self.mail) \($0)"
                }
        )
        await scheduler.shutdown()
    }

    @Test func S11_taskThatEndsInTimeThenSuspended() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let expired = Atomic<Int>(0)
        let delegate = RecordingDelegate { application in
            let task = application.beginBackgroundTask(withName: "upload") { expired.add(1, ordering: .relaxed) }
            application.executor.submit {
                try? await Task.sleep(for: .milliseconds(20))
                try? application.endBackgroundTask(task)
            }
        }
        try scheduler.register(AppDescriptor(id: self.mail), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        let suspended = await watcher.first { $0.to == .suspended || $0.to == .notRunning }
        #expect(suspended?.to == .suspended)
        #expect(suspended?.cause == .noOutstandingTasks)
        await scheduler.shutdown()
    }

    @Test func S12_taskThatIgnoresExpirationIsTerminatedNeverBeforeTheDeadline() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let handlerCalls = Recorder<Instant>()
        let delegate = RecordingDelegate { application in
            _ = application.beginBackgroundTask(withName: "sync") {
                handlerCalls.append(.origin)
            }
        }
        try scheduler.register(AppDescriptor(id: self.mail), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        let entered = await watcher.first { $0.to == .background }
        let killed = await watcher.first { $0.to == .notRunning }
        #expect(killed?.cause == .terminated(.budgetOverrun))
        #expect(handlerCalls.values.count == 1)
        if let entered, let killed {
            // Never early: the kill is at or after entry + budget.
            #expect(killed.at >= entered.at + .milliseconds(500), "entered \(entered.at), killed \(killed.at)")
        }
        await scheduler.shutdown()
    }

    @Test func S13_exitsOnSuspendAppTerminatesInsteadOfSuspending() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let delegate = RecordingDelegate()
        try scheduler.register(AppDescriptor(id: self.mail, exitsOnSuspend: true), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        let gone = await watcher.first { $0.to == .notRunning }
        #expect(gone?.cause == .terminated(.exitsOnSuspend))
        // E1 by default: never in the background.
        #expect(delegate.messages.suffix(3) == ["didBecomeActive", "willResignActive", "willTerminate"])
        #expect(!watcher.events.contains { $0.to == .suspended || $0.to == .background })
        await scheduler.shutdown()
    }

    @Test func P4_gracefulShutdownOfTheServiceGroupTerminatesEveryAppAsInS9() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let active = RecordingDelegate()
        let background = RecordingDelegate { application in
            _ = application.beginBackgroundTask(withName: "hold")
        }
        let maps: AppID = "com.example.maps"
        try scheduler.register(AppDescriptor(id: self.mail), delegate: active)
        try scheduler.register(AppDescriptor(id: maps, backgroundModes: ["location"]), delegate: background)
        try scheduler.perform(.launch, on: self.mail)
        try scheduler.perform(.launch, on: maps)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == maps && $0.to == .active }
        try scheduler.perform(.home, on: maps)
        _ = await watcher.first { $0.app == maps && $0.to == .background }

        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: scheduler)],
                logger: Logger(label: "test")
            )
        )
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            _ = await watcher.first { $0.app == self.mail && $0.to == .active }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let stopped = await watcher.eventsAfterShutdown().filter { $0.to == .notRunning }
        #expect(Set(stopped.map(\.app)) == [self.mail, maps])
        #expect(stopped.allSatisfy { $0.cause == .terminated(.shutdown) })
        #expect(active.messages.suffix(3) == ["willResignActive", "didEnterBackground", "willTerminate"])
        #expect(background.messages.last == "willTerminate")
        // After shutdown the scheduler refuses work.
        #expect(throws: SchedulerError.self) { try scheduler.perform(.launch, on: self.mail) }
    }

    @Test func B1_beginBackgroundTaskFrom100TasksGives100DistinctIDs() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let application = try scheduler.register(AppDescriptor(id: self.mail), delegate: RecordingDelegate())
        try scheduler.perform(.launch, on: self.mail)
        let ids = await withTaskGroup(of: BackgroundTaskID.self) { group in
            for index in 0..<100 {
                group.addTask { application.beginBackgroundTask(withName: "t\(index)") }
            }
            var ids: [BackgroundTaskID] = []
            for await id in group { ids.append(id) }
            return ids
        }
        #expect(ids.count == 100)
        #expect(Set(ids).count == 100)
        #expect(!ids.contains(.invalid))
        #expect(scheduler.status().first?.tasks.map(\.id).sorted() == ids.sorted())
        await withThrowingTaskGroup(of: Void.self) { group in
            for id in ids { group.addTask { try application.endBackgroundTask(id) } }
        }
        #expect(scheduler.status().first?.tasks.isEmpty == true)
        await scheduler.shutdown()
    }

    @Test func B8_endBackgroundTaskTwiceIsAnError() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let application = try scheduler.register(AppDescriptor(id: self.mail), delegate: RecordingDelegate())
        try scheduler.perform(.launch, on: self.mail)
        let id = application.beginBackgroundTask(withName: "once")
        try application.endBackgroundTask(id)
        do {
            try application.endBackgroundTask(id)
            Issue.record("a second endBackgroundTask was accepted")
        } catch {
            #expect(error.code == .alreadyEnded)
            #expect(error.task == id)
        }
        await scheduler.shutdown()
    }

    @Test func A2_workSubmittedWhileSuspendedIsHeldThenRunsAfterResume() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let application = try scheduler.register(AppDescriptor(id: self.mail), delegate: RecordingDelegate())
        #expect(!application.executor.submit {}, "work is refused while not running")
        try scheduler.perform(.launch, on: self.mail)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        _ = await watcher.first { $0.to == .suspended }
        let ran = Latch(count: 1)
        #expect(application.executor.submit { ran.countDown() })
        #expect(application.executor.heldCount == 1)
        #expect(application.executor.isSuspended)
        try scheduler.perform(.summon, on: self.mail)
        #expect(await ran.wait(), "held work did not run after resume")
        #expect(application.executor.heldCount == 0)
        await scheduler.shutdown()
    }

    @Test func A2_heldWorkIsDroppedOnTermination() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let application = try scheduler.register(AppDescriptor(id: self.mail), delegate: RecordingDelegate())
        try scheduler.perform(.launch, on: self.mail)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        _ = await watcher.first { $0.to == .suspended }
        let ran = Atomic<Bool>(false)
        application.executor.submit { ran.store(true, ordering: .relaxed) }
        try scheduler.perform(.terminate, on: self.mail)
        _ = await watcher.first { $0.to == .notRunning }
        #expect(application.executor.heldCount == 0)
        #expect(!application.executor.submit {})
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
        await scheduler.shutdown()
    }

    @Test func L1_commandErrorsCrossTheThreadBoundaryUnchanged() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        try scheduler.register(AppDescriptor(id: self.mail), delegate: RecordingDelegate())
        do {
            try scheduler.perform(.enterForeground, on: self.mail)
            Issue.record("enterForeground on a not-running app was accepted")
        } catch {
            #expect(error.description == "illegalCommand: com.example.mail cannot enterForeground in state notRunning")
        }
        #expect(throws: SchedulerError.self) { try scheduler.perform(.launch, on: "com.example.unknown") }
        let process = AppDescriptor(id: "com.example.proc", kind: .process(ProcessSpec(arguments: ["/bin/true"])))
        do {
            try scheduler.register(process, delegate: RecordingDelegate())
            Issue.record("a process app was registered on the embedding runtime")
        } catch {
            #expect(error.code == .unsupportedApp)
        }
        await scheduler.shutdown()
    }

    @Test func metricsCountTransitionsTasksAndExpirations() async throws {
        let metrics = TestMetrics()
        let scheduler = try RunwayScheduler(settings: shortSettings, metricsFactory: metrics)
        let watcher = TransitionWatcher(scheduler)
        let delegate = RecordingDelegate { application in
            _ = application.beginBackgroundTask(withName: "stuck") {}
        }
        try scheduler.register(AppDescriptor(id: self.mail), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        _ = await watcher.first { $0.to == .notRunning }
        await scheduler.shutdown()
        #expect(metrics.counterTotal(label: "runway_background_tasks_begun_total") == 1)
        #expect(metrics.counterTotal(label: "runway_expiration_handlers_called_total") == 1)
        #expect(
            metrics.counterTotal(label: "runway_terminations_total", dimensions: [("reason", "budgetOverrun")]) == 1
        )
        // notRunning -> inactive -> active (L9), -> background, -> notRunning.
        #expect(metrics.counterTotal(label: "runway_transitions_total") == 4)
        let lateness = try metrics.expectTimer("runway_wakeup_lateness")
        #expect(!lateness.values.isEmpty)
        #expect(lateness.values.allSatisfy { $0 >= 0 })
    }

    @Test func P4_concurrentShutdownsAllReturnAndWaitersAreReleased() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let delegate = RecordingDelegate()
        try scheduler.register(AppDescriptor(id: self.mail), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        async let waited: Void = scheduler.waitUntilStopped()
        async let first: Void = scheduler.shutdown()
        async let second: Void = scheduler.shutdown()
        _ = await (waited, first, second)
        await scheduler.shutdown()
        #expect(await watcher.eventsAfterShutdown().filter { $0.to == .notRunning }.count == 1)
        #expect(delegate.messages.last == "willTerminate")
        #expect(scheduler.status().isEmpty)
    }
}
