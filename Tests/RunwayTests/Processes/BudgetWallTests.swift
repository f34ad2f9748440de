import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayControl
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// B6 and P2 with real children: an app that overruns its budget is SIGKILLed at the deadline, in both suspension
/// modes, whatever it does with SIGTERM; what it started goes with it, and the exit is reaped and reported.
@Suite("Process apps: the budget is a wall (B6, P2)", .serialized)
struct BudgetWallTests {
    static let mechanisms: [SuspensionMechanism] =
        ProcessTestSupport.freezerAvailable ? [.signal, .freezer] : [.signal]

    /// A 1 s budget and a 5 s TerminationGrace: a kill that waited for the grace would come 5 s after the deadline.
    static let settings = SchedulerSettings(
        backgroundTimeBudget: .seconds(1),
        expirationWarningLead: .milliseconds(500),
        backgroundEntryGrace: .seconds(5),
        terminationGrace: .seconds(5)
    )

    @Test("B6: an overrunning app that traps SIGTERM, and its child, are killed at the deadline", arguments: mechanisms)
    func B6_overrunningAppIgnoringSIGTERMIsKilledAtTheDeadline(mechanism: SuspensionMechanism) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runway-wall-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scheduler = try RunwayScheduler(
            settings: Self.settings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.wall"
        // The app records any SIGTERM it gets and goes on; its child ignores SIGTERM outright.
        let script = """
            trap 'echo term >> \(directory)/term' TERM
            (trap '' TERM; while :; do sleep 0.05; done) &
            echo $! > \(directory)/child
            while :; do sleep 0.05; done
            """
        try scheduler.register(process: ProcessTestSupport.shell(app, script))
        try scheduler.perform(.launch, on: app)
        let pid = try #require(scheduler.processes()[app]?.pid)
        let childPath = "\(directory)/child"
        #expect(await eventually { FileManager.default.fileExists(atPath: childPath) })
        let childText = try String(contentsOfFile: childPath, encoding: .utf8)
        let child = try #require(Int32(childText.trimmingCharacters(in: .whitespacesAndNewlines)))
        _ = try #require(try scheduler.requestBackgroundTask(withName: "overrun", for: app)?.get())
        try scheduler.perform(.home, on: app)
        let entered = try #require(await watcher.first { $0.app == app && $0.to == .background })
        let gone = try #require(await watcher.first(timeout: .seconds(30)) { $0.app == app && $0.to == .notRunning })
        let deadline = entered.at + Self.settings.backgroundTimeBudget
        #expect(gone.cause == .terminated(.budgetOverrun))
        #expect(gone.exit == .signaled(SIGKILL))
        // Never before the deadline (B9), and killed there rather than a TerminationGrace later; how late, within
        // that, is measured by `runway bench --processes`, not asserted here.
        #expect(gone.at >= deadline)
        #expect(gone.at < deadline + Self.settings.terminationGrace, "gone \(gone.at - deadline) after the deadline")
        // No SIGTERM reached the app: the kill was the first signal.
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/term"))
        #expect(await eventually { ProcessTestSupport.isGone(pid) && ProcessTestSupport.isGone(child) })
        await scheduler.shutdown()
    }

    @Test("B11: with OverrunSignalLead, SIGTERM comes inside the budget and SIGKILL still at the deadline")
    func B11_overrunNoticeIsSIGTERMBeforeTheDeadlineThenSIGKILL() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runway-wall-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var settings = Self.settings
        settings.overrunSignalLead = .milliseconds(500)
        let scheduler = try RunwayScheduler(settings: settings, processOptions: ProcessTestSupport.options(.signal))
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.notice"
        // The app records the SIGTERM and goes on running.
        let script = """
            trap 'echo term >> \(directory)/term' TERM
            echo ready > \(directory)/ready
            while :; do sleep 0.05; done
            """
        try scheduler.register(process: ProcessTestSupport.shell(app, script))
        try scheduler.perform(.launch, on: app)
        #expect(await eventually { FileManager.default.fileExists(atPath: "\(directory)/ready") })
        _ = try #require(try scheduler.requestBackgroundTask(withName: "overrun", for: app)?.get())
        try scheduler.perform(.home, on: app)
        let entered = try #require(await watcher.first { $0.app == app && $0.to == .background })
        let gone = try #require(await watcher.first(timeout: .seconds(30)) { $0.app == app && $0.to == .notRunning })
        let deadline = entered.at + settings.backgroundTimeBudget
        // The notice reached the app, which stayed in the background (no transition in between) until SIGKILL.
        #expect(FileManager.default.fileExists(atPath: "\(directory)/term"))
        #expect(watcher.events.filter { $0.app == app }.map(\.to) == [.inactive, .active, .background, .notRunning])
        #expect(gone.cause == .terminated(.budgetOverrun))
        #expect(gone.exit == .signaled(SIGKILL))
        #expect(gone.at >= deadline)
        #expect(gone.at < deadline + settings.terminationGrace, "gone \(gone.at - deadline) after the deadline")
        await scheduler.shutdown()
    }
}
