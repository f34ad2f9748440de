@_spi(Driver) import RunwayCore
import Testing

/// P8, the purge order that memory pressure (P3) and `runway purge` follow: suspended apps, longest suspended first;
/// then apps in the background: doing no work, then holding a task or an uncompleted wake-up, then background-mode
/// apps (L7), each longest in the background first; never an app in the foreground. Manual clock; budget 30 s,
/// lead 5 s, graces 5 s.
@Suite struct PurgeOrderActionTests {
    private let notes: AppID = "com.example.notes"
    private let sync: AppID = "com.example.sync"
    private let radio: AppID = "com.example.radio"
    private let editor: AppID = "com.example.editor"

    /// At t=5: radio (background mode) in the background since 0, maps suspended since 1, sync in the background
    /// holding "upload" since 2, mail suspended since 3, notes in the background since 4 and not yet returned from
    /// `didEnterBackground` (no task), editor active. All embedded.
    private func device() throws -> (Scheduler, BackgroundTaskID) {
        var scheduler = try makeScheduler([
            AppDescriptor(id: mail), AppDescriptor(id: maps), AppDescriptor(id: self.notes),
            AppDescriptor(id: self.sync), AppDescriptor(id: self.radio, backgroundModes: ["audio"]),
            AppDescriptor(id: self.editor),
        ])
        for app in [mail, maps, self.notes, self.sync, self.radio, self.editor] {
            try scheduler.run(.launch, for: app, now: at(0))
        }
        try scheduler.run(.enterBackground, for: self.radio, now: at(0))
        try scheduler.run(.enterBackground, for: maps, now: at(1))
        let task = scheduler.beginTask("upload", in: self.sync, now: at(2))
        try scheduler.run(.enterBackground, for: self.sync, now: at(2))
        try scheduler.run(.enterBackground, for: mail, now: at(3))
        _ = try scheduler.commandReceived(.enterBackground, for: self.notes, now: at(4))
        let states = [mail, maps, self.notes, self.sync, self.radio, self.editor].map { scheduler.state(of: $0) }
        #expect(states == [.suspended, .suspended, .background, .background, .background, .active])
        return (scheduler, task)
    }

    @Test func P8_purgesGoSuspendedLongestFirstThenIdleThenWorkingThenBackgroundModeAppsAndNeverTheForeground()
        throws
    {
        var (scheduler, _) = try self.device()
        var purged: [AppID] = []
        while let app = scheduler.purgeRequested(now: at(5)).purged {
            purged.append(app)
            #expect(purged.count <= 6, "purged more apps than are running: \(purged)")
            if purged.count > 6 { break }
        }
        // Expected: maps (suspended at 1), mail (suspended at 3), notes (background, no work), sync (background,
        // holding a task), radio (background mode, in the background the longest of all but last); editor never.
        #expect(purged == [maps, mail, self.notes, self.sync, self.radio])
        #expect(scheduler.state(of: self.editor) == .active)
        for app in purged {
            #expect(scheduler.status(of: app, now: at(5))?.lastTermination == .memoryPressure)
        }
    }

    @Test func P8_aPurgedBackgroundAppHoldingATaskIsStoppedWithoutAMessageAndItsTaskEnds() throws {
        var (scheduler, task) = try self.device()
        for _ in 0..<3 { _ = scheduler.purgeRequested(now: at(5)) }
        let purge = scheduler.purgeRequested(now: at(6))
        // Expected: sync, with no message: stop, its task ended, publish background -> notRunning (memoryPressure);
        // its warning (27) and deadline (32) are gone and nothing else is armed: no wake-up.
        #expect(purge.purged == self.sync)
        #expect(
            purge.actions == [
                .stop(self.sync),
                .endTasks(self.sync, [task]),
                published(self.sync, .background, .notRunning, .terminated(.memoryPressure), at: at(6)),
                .cancelWakeup,
            ]
        )
    }

    @Test func P8_criticalPressureReachesAnAppInTheBackgroundWhenNoneIsSuspended() throws {
        var scheduler = try makeScheduler([process(mail), process(maps)])
        try scheduler.run(.launch, for: mail, now: at(0))
        try scheduler.run(.launch, for: maps, now: at(0))
        _ = scheduler.beginTask("upload", in: maps, now: at(0))
        try scheduler.run(.enterBackground, for: maps, now: at(1))
        // Expected: the first critical sample warns the running apps, then purges maps, holding a task in the
        // background, with SIGKILL at once (P2); mail, active, is never purged.
        let critical = scheduler.memoryPressureSampled(.psi(percent: 50), now: at(2))
        #expect(critical.purged == maps)
        #expect(critical.actions.contains(.kill(maps)))
        #expect(!critical.actions.contains(.kill(mail)))
        #expect(scheduler.memoryPressureSampled(.psi(percent: 50), now: at(3)).purged == nil)
        #expect(scheduler.state(of: mail) == .active)
    }
}
