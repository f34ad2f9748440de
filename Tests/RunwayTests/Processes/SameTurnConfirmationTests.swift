import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// The scan of an app is shared by everything in one loop turn, so a
/// confirmation check made in the turn of its SIGSTOP (the tick checks confirmations right after the drains it
/// resumes, `ProcessSupervisor+Tick.swift`) does not rescan, and a process forked after the turn's scan, outside
/// the app's process group, is neither stopped nor seen: the suspension is confirmed while it runs (P1).
@Suite("a suspension checked in its own turn", .serialized)
struct SameTurnConfirmationTests {
    @Test("P1: a process forked after the turn's scan is stopped before the suspension is confirmed")
    func P1_processForkedAfterTheTurnsScanIsStoppedBeforeConfirmation() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("runway-sameturn-\(getpid())").path
        unlink(file)
        defer { unlink(file) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        let app: AppID = "com.test.sameturn"
        // On SIGUSR1 the app starts `setsid sleep 1000` (a new session and group: the group's SIGSTOP misses it).
        let script = "trap 'setsid sleep 1000 & echo $! > \(file)' USR1; " + ProcessTestSupport.idleLoop
        try scheduler.register(process: ProcessTestSupport.shell(app, script))
        try scheduler.perform(.launch, on: app)
        let main = try #require(scheduler.processes()[app]?.pid)
        try await Task.sleep(for: .milliseconds(200))  // The shell has set its trap.

        // One loop turn, in the order the tick runs a drain that ends in a suspension: a scan of the app (here
        // made first, as `signalEveryProcess` or any other scan of this turn does), a fork by the app, the
        // suspension (`setSuspended`: scan shared, SIGSTOP), then the confirmation check of the same turn.
        let outcome = scheduler.bridge.sync { driver -> (confirmed: Bool, escapee: Int32)? in
            let supervisor = driver.processSupervisor()
            supervisor.refreshTracking([app])
            kill(main, SIGUSR1)
            var escapee: Int32 = 0
            for _ in 0..<200 where escapee == 0 {
                usleep(10_000)
                let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
                if let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                    ProcFS.stat(pid)?.parent == main
                {
                    escapee = pid
                }
            }
            guard escapee > 0 else { return nil }
            supervisor.setSuspended(true, app)
            usleep(100_000)  // The kernel stops the group.
            supervisor.checkConfirmation(app, now: driver.loop.turnNow)
            return (supervisor.apps[app]?.confirmation?.isConfirmed == true, escapee)
        }
        let result = try #require(outcome ?? nil, "the app did not start its escapee")
        defer { kill(result.escapee, SIGKILL) }
        // Confirmed then or on a later tick, the escapee (a child of the app's main process) must be stopped.
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        let state = ProcessTestSupport.processState(result.escapee).map(String.init) ?? "gone"
        let pid = result.escapee
        #expect(state == "T", "confirmed (in its own turn: \(result.confirmed)) while \(pid) shows \(state)")
        await scheduler.shutdown()
    }
}
