import Foundation
import Runway
@_spi(Driver) import RunwayCore
import RunwayTestKit
import Testing

@testable import RunwayControl

/// A stop with N running apps ends N runs in one burst. The history marks itself changed at each end and is copied
/// for the writer when a write starts: at most twice for the burst (the write that starts during it and the stop's
/// flush), not once per exit, which made the loop's work per exit grow with the number of apps.
@Suite("Run history snapshots")
struct RunHistorySnapshotTests {
    static func event(_ app: AppID, from: AppState, to: AppState, cause: TransitionCause) -> TransitionEvent {
        TransitionEvent(
            app: app,
            from: from,
            to: to,
            cause: cause,
            at: Instant(nanosecondsSinceOrigin: 1_000_000),
            messages: [],
            exit: to == .notRunning ? .signaled(15) : nil
        )
    }

    @Test func P4_aBurstOfEndedRunsIsCopiedOncePerWriteNotOncePerExit() async throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let scheduler = try RunwayScheduler(settings: SchedulerSettings())
        let apps = (0..<1_000).map { AppID("com.example.app\($0)") }
        let file = RunHistoryFile(
            path: directory.path + "/history.json",
            readByteLimit: RunHistoryFile.readByteLimit(apps: apps.count, runsPerApp: 4)
        )
        let history = RunHistory(limit: 4, file: file, clock: WallClock(scheduler: scheduler))
        for app in apps {
            history.transitioned(Self.event(app, from: .notRunning, to: .active, cause: .command(.launch)))
        }
        for app in apps {
            history.transitioned(Self.event(app, from: .active, to: .notRunning, cause: .terminated(.shutdown)))
        }
        history.flush()
        #expect(history.snapshotCount <= 2, "snapshots for \(apps.count) ended runs")
        // Nothing is lost: the file has every app's ended run.
        let saved = try file.read().get()
        #expect(saved.count == apps.count)
        #expect(saved.values.allSatisfy { $0.count == 1 && $0[0].reason == "shutdown" })
        await scheduler.shutdown()
    }
}
