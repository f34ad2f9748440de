@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// S11, S12, S13 for protocol apps, and A4/A5 with real children: the Swift sample (RunwayClient), the Python
/// sample (Config/Programs/sample_app.py) and shell scripts that speak or abuse the protocol on fd 3.
@Suite("Process apps: the app protocol (A4, A5, S11-S13)", .serialized)
struct ProcessProtocolTests {
    @Test("S11: a protocol app's task that ends in time, then suspended", arguments: ProtocolApps.Sample.allCases)
    func S11_taskEndsInTimeThenSuspended(sample: ProtocolApps.Sample) async throws {
        let run = try await ProtocolApps.HomeRun(sample, AppID("com.test.s11.\(sample)"), taskSeconds: "0.1")
        let suspended = await run.watcher.first { $0.app == run.app && $0.to == .suspended }
        #expect(suspended?.cause == .noOutstandingTasks)
        #expect(await run.printed("began"))
        #expect(await run.printed("ended"))
        await run.scheduler.shutdown()
    }

    @Test(
        """
        S12: a protocol app's task that ignores expiration gets backgroundTaskWillExpire, \
        then is killed at the deadline
        """,
        arguments: ProtocolApps.Sample.allCases
    )
    func S12_taskIgnoringExpirationIsTerminated(sample: ProtocolApps.Sample) async throws {
        let run = try await ProtocolApps.HomeRun(sample, AppID("com.test.s12.\(sample)"), taskSeconds: "never")
        let background = try #require(await run.watcher.first { $0.app == run.app && $0.to == .background })
        let gone = try #require(await run.watcher.first { $0.app == run.app && $0.to == .notRunning })
        #expect(gone.cause == .terminated(.budgetOverrun))
        // Never before the deadline (B9); how late is measured by the benchmarks, not asserted here.
        #expect(gone.at >= background.at + ProtocolApps.settings.backgroundTimeBudget)
        #expect(await run.printed(sample == .swift ? "received backgroundTaskWillExpire" : "will expire"))
        // B4 for a process app: the expiration message went out at the warning instant, never before.
        let warnings = run.sent.values.filter {
            if case .backgroundTaskWillExpire = $0.1 { return $0.0 == run.app }
            return false
        }
        #expect(warnings.count == 1)
        let warningInstant =
            background.at + ProtocolApps.settings.backgroundTimeBudget - ProtocolApps.settings.expirationWarningLead
        #expect(warnings.allSatisfy { $0.2 >= warningInstant })
        await run.scheduler.shutdown()
    }

    @Test(
        "S13: an exits-on-suspend protocol app gets willTerminate and exits instead of suspending",
        arguments: ProtocolApps.Sample.allCases
    )
    func S13_exitsOnSuspendProtocolApp(sample: ProtocolApps.Sample) async throws {
        let run = try await ProtocolApps.HomeRun(
            sample,
            AppID("com.test.s13.\(sample)"),
            taskSeconds: "0.05",
            exitsOnSuspend: true
        )
        let gone = try #require(await run.watcher.first { $0.app == run.app && $0.to == .notRunning })
        #expect(gone.cause == .terminated(.exitsOnSuspend))
        #expect(gone.messages == [.willTerminate])
        #expect(await run.printed("received willTerminate"))
        #expect(!run.watcher.events.contains { $0.app == run.app && $0.to == .suspended })
        await run.scheduler.shutdown()
    }

    @Test("A5: one garbage line and one 1 MiB line get error replies; the app keeps running")
    func A5_garbageGetsAnErrorReply() async throws {
        let log = Recorder<String>()
        let scheduler = try ProtocolApps.start(log)
        let app: AppID = "com.test.garbage"
        let script = #"""
            ack_next() { read -r m <&3; t=${m##*\"token\":}; echo "{\"type\":\"ack\",\"token\":${t%%[!0-9]*}}" >&3; }
            read -r hello <&3; echo "hello: $hello"
            ack_next; ack_next
            echo 'not json' >&3; read -r reply <&3; echo "reply1: $reply"
            head -c 1048576 /dev/zero | tr '\0' a >&3; echo >&3; read -r reply <&3; echo "reply2: $reply"
            echo '{"type":"endBackgroundTask","request":7,"task":424242}' >&3; read -r reply <&3; echo "reply3: $reply"
            while :; do sleep 0.05; done
            """#
        try scheduler.register(process: ProcessTestSupport.shell(app, script, protocol: true))
        try scheduler.perform(.launch, on: app)
        #expect(
            await ProtocolApps.printed(
                log,
                app,
                "hello: {\"app\":\"com.test.garbage\",\"type\":\"hello\",\"version\":1}"
            )
        )
        #expect(await ProtocolApps.printed(log, app, "reply1: {\"code\":\"invalidJSON\""))
        #expect(await ProtocolApps.printed(log, app, "reply2: {\"code\":\"lineTooLong\""))
        #expect(await ProtocolApps.printed(log, app, #"reply3: {"code":"unknownTask""#))
        #expect(log.values.contains { $0.contains("reply3") && $0.contains(#""request":7"#) })
        #expect(scheduler.status().first { $0.app == app }?.state == .active)
        await scheduler.shutdown()
    }

    @Test(
        "A5: a child that sends garbage repeatedly, or floods, is terminated with protocolViolation",
        arguments: [
            "read -r hello <&3; while :; do echo 'garbage' >&3; sleep 0.01; done",
            #"read -r hello <&3; while :; do echo '{"type":"ack","token":999999}'; done >&3"#,
        ]
    )
    func A5_repeatedGarbageOrFloodIsTerminated(script: String) async throws {
        let log = Recorder<String>()
        let scheduler = try ProtocolApps.start(log)
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.abuser"
        try scheduler.register(process: ProcessTestSupport.shell(app, script, protocol: true))
        try scheduler.register(process: ProcessTestSupport.shell("com.test.neighbour", ProcessTestSupport.idleLoop))
        try scheduler.perform(.launch, on: app)
        try scheduler.perform(.launch, on: "com.test.neighbour")
        let gone = await watcher.first { $0.app == app && $0.to == .notRunning }
        #expect(gone?.cause == .terminated(.protocolViolation))
        #expect(scheduler.status().first { $0.app == "com.test.neighbour" }?.state == .active)
        await scheduler.shutdown()
    }
}
