import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// P1 for descendants that left the app's session before any scan saw them: the confirmation look that finds them
/// attributes each to its app and stops it before the suspension counts as confirmed. Real child processes.
@Suite("Process apps: escapees stopped with their suspended app (P1)", .serialized)
struct EscapeeSuspensionTests {
    /// Signal-mode options whose light scan never runs during a test: only the confirmation looks attribute
    /// re-parented processes.
    static func optionsWithoutLightScan() -> ProcessOptions {
        var options = ProcessTestSupport.options(.signal)
        options.descendantScanInterval = .seconds(3600)
        return options
    }

    @Test(
        "P1: an escapee attributed to a suspended app by another app's look is stopped too"
    )
    func P1_escapeeAttributedByAnotherAppsLookIsStopped() async throws {
        let files = [TemporaryPaths.file(), TemporaryPaths.file()]
        defer { for file in files { unlink(file) } }
        let scheduler = try RunwayScheduler(settings: shortSettings, processOptions: Self.optionsWithoutLightScan())
        let apps: [AppID] = ["com.test.escaper.a", "com.test.escaper.b"]
        for (app, file) in zip(apps, files) {
            try scheduler.register(process: Escapees.escaper(app, pidFile: file))
        }
        #expect(scheduler.perform(.launch, onEach: apps).isEmpty)
        var escapees: [Int32] = []
        for (app, file) in zip(apps, files) {
            let main = try #require(scheduler.processes()[app]?.pid)
            let escapee = try #require(await Escapees.pids(in: file).first)
            #expect(await eventually { Escapees.hasEscaped(escapee, from: main) })
            escapees.append(escapee)
        }
        defer { for escapee in escapees { kill(escapee, SIGKILL) } }
        // Both escapees are re-parented here and no scan has seen them. Home for both in one loop turn: the first
        // confirmation look that reads this process's children attributes both escapees, each to its app.
        _ = scheduler.bridge.sync { driver in
            for app in apps { try? driver.userAction(.home, for: app) }
        }
        let confirmed = await eventually(timeout: .seconds(5)) {
            apps.allSatisfy { scheduler.processes()[$0]?.suspensionConfirmed == true }
        }
        let states = escapees.map { ProcessTestSupport.processState($0) }
        #expect(confirmed, "suspensions confirmed: \(apps.map { scheduler.processes()[$0]?.suspensionConfirmed })")
        #expect(states.allSatisfy { $0 == "T" }, "escapees \(escapees) show \(states) with their apps suspended")
        await scheduler.shutdown()
    }

    @Test(
        "P1: a setsid'd escapee no scan has seen at Home is stopped before the suspension is confirmed",
        arguments: [false, true]
    )
    func P1_unseenEscapeeIsStoppedBeforeConfirmation(reparented: Bool) async throws {
        let file = TemporaryPaths.file()
        defer { unlink(file) }
        let scheduler = try RunwayScheduler(settings: shortSettings, processOptions: Self.optionsWithoutLightScan())
        let app: AppID = "com.test.unseen"
        // Re-parented here (double fork), or still the main process's child (setsid only).
        let descriptor =
            reparented
            ? Escapees.escaper(app, pidFile: file)
            : ProcessTestSupport.shell(
                app,
                "trap 'exit 0' TERM; setsid sh -c 'echo $$ >> \(file); exec sleep 1000' & "
                    + ProcessTestSupport.idleLoop
            )
        try scheduler.register(process: descriptor)
        try scheduler.perform(.launch, on: app)
        let main = try #require(scheduler.processes()[app]?.pid)
        let escapee = try #require(await Escapees.pids(in: file).first)
        defer { kill(escapee, SIGKILL) }
        #expect(await eventually { (ProcFS.stat(escapee)?.session ?? main) != main })
        try scheduler.perform(.home, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        #expect(ProcessTestSupport.processState(escapee) == "T", "confirmed while the escapee runs")
        try scheduler.perform(.summon, on: app)
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true })
        #expect(await eventually { ProcessTestSupport.processState(escapee) != "T" }, "the escapee stayed stopped")
        await scheduler.shutdown()
    }
}
