import RunwayConfig
@_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses
import Testing

@Suite("C1: the shipped Config/ directory")
struct ShippedConfigTests {
    let shellLoop = ["/bin/sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"]

    @Test func C1_shippedConfigLoadsWithoutWarnings() throws {
        let configuration = try ConfigLoader.load(directory: shippedConfigDirectory())

        #expect(configuration.warnings == [])
        #expect(configuration.directory == shippedConfigDirectory())
        // Sorted by bundle identifier.
        #expect(
            configuration.apps.map(\.descriptor.id) == [
                "com.example.notes", "com.example.player", "com.example.sync", "com.example.uploader",
                "com.example.watcher", "com.example.weather", "com.example.worker",
            ]
        )
        #expect(
            configuration.apps.map(\.file)
                == configuration.apps.map {
                    shippedConfigDirectory() + "/Apps/\($0.descriptor.id).plist"
                }
        )
    }

    @Test func C1_shippedRunwayPlistMapsEveryKeyAndDefaults() throws {
        let configuration = try ConfigLoader.load(directory: shippedConfigDirectory())

        #expect(
            configuration.settings
                == SchedulerSettings(
                    backgroundTimeBudget: .seconds(10),
                    expirationWarningLead: .seconds(3),
                    backgroundEntryGrace: .seconds(2),
                    terminationGrace: .seconds(2),
                    overrunPolicy: .terminate,
                    // Not in the shipped file: defaults.
                    exitsOnSuspendStyle: .immediate,
                    budgetRefillPolicy: .fullEachPeriod,
                    notificationQueueLimit: 64
                )
        )
        #expect(configuration.daemon == DaemonSettings())
        #expect(configuration.daemon.suspensionMechanism == .auto)
        #expect(configuration.daemon.controlSocketPath == DaemonSettings.defaultControlSocketPath())
        #expect(configuration.daemon.memoryPressureSource == .psi)
        #expect(configuration.daemon.memoryWarningPressure == 10)
        #expect(configuration.daemon.memoryCriticalPressure == 30)
        #expect(configuration.daemon.rssCeilingBytes == nil)
        #expect(configuration.daemon.memoryPollInterval == .seconds(1))
    }

    @Test func C1_shippedAppsMapToTheirDescriptors() throws {
        let configuration = try ConfigLoader.load(directory: shippedConfigDirectory())
        let process = AppKind.process(ProcessSpec(arguments: self.shellLoop))

        #expect(
            configuration.apps.map(\.descriptor) == [
                AppDescriptor(id: "com.example.notes", kind: process),
                AppDescriptor(id: "com.example.player", kind: process, backgroundModes: ["audio"]),
                AppDescriptor(
                    id: "com.example.sync",
                    kind: .process(
                        ProcessSpec(
                            arguments: ["Programs/sample_app.py"],
                            environment: ["SAMPLE_TASK_SECONDS": "never"],
                            speaksProtocol: true
                        )
                    ),
                    backgroundTimeBudget: .seconds(4)
                ),
                AppDescriptor(
                    id: "com.example.uploader",
                    kind: .process(
                        ProcessSpec(
                            arguments: ["runway-sample-app"],
                            environment: ["SAMPLE_TASK_SECONDS": "2"],
                            speaksProtocol: true
                        )
                    ),
                    exitsOnSuspend: true,
                    exitsOnSuspendStyle: .drain,
                    backgroundTimeBudget: .seconds(6)
                ),
                {
                    // RunAtLoad into the background: it has a background mode.
                    var watcher = AppDescriptor(id: "com.example.watcher", kind: process, backgroundModes: ["fetch"])
                    watcher.runAtLoad = true
                    return watcher
                }(),
                AppDescriptor(
                    id: "com.example.weather",
                    kind: .process(
                        ProcessSpec(
                            arguments: ["Programs/sample_app.py"],
                            environment: [
                                "SAMPLE_TASK_SECONDS": "0.5", "SAMPLE_WAKE_SECONDS": "1.5",
                                "SAMPLE_REFRESH_SECONDS": "6",
                            ],
                            speaksProtocol: true
                        )
                    ),
                    lockBehavior: .modern,
                    backgroundWakeBudget: .seconds(4)
                ),
                {
                    // RunAtLoad, and KeepAlive {SuccessfulExit = NO} with ThrottleInterval 1.
                    var worker = AppDescriptor(
                        id: "com.example.worker",
                        kind: .process(ProcessSpec(arguments: ["Programs/flaky_worker.sh"]))
                    )
                    worker.runAtLoad = true
                    worker.keepAlive = RestartPolicy(
                        conditions: [.successfulExit(false)],
                        throttleInterval: .seconds(1)
                    )
                    return worker
                }(),
            ]
        )
        // The plain apps get signals only; the three protocol apps are awaited (L2, A4).
        #expect(
            configuration.apps.filter(\.descriptor.awaitsMessages).map(\.descriptor.id) == [
                "com.example.sync", "com.example.uploader", "com.example.weather",
            ]
        )
    }

    @Test func C1_loadAppReadsOneShippedFile() throws {
        let file = shippedConfigDirectory() + "/Apps/com.example.sync.plist"
        let (app, warnings) = try ConfigLoader.loadApp(file: file)

        #expect(app.file == file)
        #expect(app.descriptor.id == "com.example.sync")
        #expect(app.descriptor.backgroundTimeBudget == .seconds(4))
        #expect(warnings == [])
    }

    @Test func C1_concurrentLoadsAgree() async throws {
        // The loader shares no state: loads from many tasks at once all see the same configuration.
        let expected = try ConfigLoader.load(directory: shippedConfigDirectory()).apps
        let results = await withTaskGroup(of: [ConfiguredApp]?.self) { group in
            for _ in 0..<8 {
                group.addTask { try? ConfigLoader.load(directory: shippedConfigDirectory()).apps }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: expected, count: 8))
    }
}
