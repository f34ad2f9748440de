@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

/// The sample protocol apps (Swift and Python), budgets they can meet on a busy machine, and a run sent Home.
enum ProtocolApps {
    enum Sample: String, CaseIterable, CustomTestStringConvertible {
        case swift, python
        var testDescription: String { self.rawValue }

        func descriptor(_ id: AppID, taskSeconds: String, exitsOnSuspend: Bool = false) -> AppDescriptor {
            var descriptor: AppDescriptor
            switch self {
            case .swift:
                descriptor = ProcessTestSupport.sample(id, environment: ["SAMPLE_TASK_SECONDS": taskSeconds])
            case .python:
                descriptor = AppDescriptor(
                    id: id,
                    kind: .process(
                        ProcessSpec(
                            arguments: ["/usr/bin/env", "python3", ProcessTestSupport.pythonSample],
                            environment: ["SAMPLE_TASK_SECONDS": taskSeconds],
                            speaksProtocol: true
                        )
                    )
                )
            }
            descriptor.exitsOnSuspend = exitsOnSuspend
            return descriptor
        }
    }

    /// Budgets long enough for a Python interpreter to start and answer on a busy 2-core machine.
    static let settings = SchedulerSettings(
        backgroundTimeBudget: .milliseconds(1_500),
        expirationWarningLead: .milliseconds(700),
        backgroundEntryGrace: .seconds(3),
        terminationGrace: .seconds(1)
    )

    static func start(_ log: Recorder<String>) throws -> RunwayScheduler {
        try RunwayScheduler(
            settings: Self.settings,
            processOptions: ProcessTestSupport.options(.auto),
            logger: .recording(log)
        )
    }

    /// A scheduler running one sample app, launched and active (its `didBecomeActive` printed), then sent Home.
    struct HomeRun {
        let log = Recorder<String>()
        /// Every message sent to an app (`observeMessages`), with its instant.
        let sent = Recorder<(AppID, Message, Instant)>()
        let scheduler: RunwayScheduler
        let watcher: TransitionWatcher
        let app: AppID

        init(_ sample: Sample, _ app: AppID, taskSeconds: String, exitsOnSuspend: Bool = false) async throws {
            self.app = app
            self.scheduler = try ProtocolApps.start(self.log)
            self.watcher = TransitionWatcher(self.scheduler)
            let sent = self.sent
            self.scheduler.observeMessages { app, message, at in sent.append((app, message, at)) }
            try self.scheduler.register(
                process: sample.descriptor(app, taskSeconds: taskSeconds, exitsOnSuspend: exitsOnSuspend)
            )
            try self.scheduler.perform(.launch, on: app)
            #expect(await ProtocolApps.printed(self.log, app, "received didBecomeActive"))
            try self.scheduler.perform(.home, on: app)
        }

        func printed(_ fragment: String) async -> Bool {
            await ProtocolApps.printed(self.log, self.app, fragment)
        }
    }

    static func printed(_ log: Recorder<String>, _ app: AppID, _ fragment: String) async -> Bool {
        await eventually { log.values.contains { $0.contains("app=\(app)") && $0.contains(fragment) } }
    }
}
