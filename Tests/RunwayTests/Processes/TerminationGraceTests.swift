@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// L4 with a real protocol child: the whole termination from `willTerminate` on fits in one
/// `TerminationGrace`; an app that ignores `willTerminate` (and SIGTERM) no longer lives twice the grace.
@Suite("Process apps: one termination grace (L4)", .serialized)
struct TerminationGraceTests {
    @Test("L4: a protocol app that ignores willTerminate and SIGTERM is killed TerminationGrace after it was sent")
    func L4_anAppIgnoringWillTerminateIsKilledOneGraceAfterItWasSent() async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let watcher = TransitionWatcher(scheduler)
        let sent = Recorder<(AppID, Message, Instant)>()
        scheduler.observeMessages { app, message, at in sent.append((app, message, at)) }
        let app: AppID = "com.test.deaf"
        // Acknowledges every message but willTerminate; SIGTERM is ignored.
        let script = #"""
            trap '' TERM
            read -r hello <&3
            while read -r m <&3; do
                case "$m" in
                *willTerminate*) echo "got willTerminate" ;;
                *) t=${m##*\"token\":}; echo "{\"type\":\"ack\",\"token\":${t%%[!0-9]*}}" >&3 ;;
                esac
            done
            """#
        try scheduler.register(process: ProcessTestSupport.shell(app, script, protocol: true))
        try scheduler.perform(.launch, on: app)
        let pid = try #require(scheduler.processes()[app]?.pid)
        #expect(await eventually { ProcessTestSupport.ignoresSIGTERM(pid) })
        #expect(await eventually { scheduler.status().first { $0.app == app }?.messageInFlight == nil })
        try scheduler.perform(.terminate, on: app)
        let gone = try #require(await watcher.first { $0.app == app && $0.to == .notRunning })
        #expect(gone.exit == .signaled(SIGKILL))
        #expect(gone.messages == [.willResignActive, .didEnterBackground, .willTerminate])
        let willTerminate = try #require(sent.values.first { $0.0 == app && $0.1 == .willTerminate }?.2)
        let grace = shortSettings.terminationGrace
        // Never before the grace; and well before the old instant, a second grace later (SIGTERM at the grace,
        // SIGKILL a grace after that). How late the kill is, is measured by the benchmarks, not asserted here.
        #expect(gone.at - willTerminate >= grace)
        #expect(gone.at - willTerminate < grace + .milliseconds(300), "killed \(gone.at - willTerminate) after")
        #expect(await eventually { ProcessTestSupport.isGone(pid) })
        await scheduler.shutdown()
    }
}
