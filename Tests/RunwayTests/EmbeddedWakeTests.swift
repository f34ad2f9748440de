import Runway
@_spi(Driver) import RunwayCore
import RunwayLocking
import Testing

/// Background wake-ups of embedded apps on the real loop (W1, W4, W7): the delegate method, the completion call and
/// a scheduled refresh through the embedding API. Waits are bounded by generous timeouts; assertions are about
/// order, causes and "never early".
@Suite struct EmbeddedWakeTests {
    let mail: AppID = "com.example.mail"

    /// Short settings with a 5 s wake budget: completion, not the deadline, ends each wake-up here.
    var settings: SchedulerSettings {
        var settings = shortSettings
        settings.backgroundWakeBudget = .seconds(5)
        return settings
    }

    /// Records each wake-up and leaves it to the test to complete.
    final class WakeDelegate: RunwayAppDelegate {
        let wakes = Recorder<String>()
        let tokens = Recorder<WakeToken>()

        func didReceiveBackgroundWake(
            reason: WakeReason,
            payload: String,
            token: WakeToken,
            _ application: RunwayApplication
        ) async {
            self.wakes.append("\(reason) \(payload)")
            self.tokens.append(token)
        }
    }

    /// Asks for a refresh 300 ms after launch and keeps the default wake-up handling (complete at once).
    final class RefreshingDelegate: RunwayAppDelegate {
        let requested = RunwayLock<ContinuousClock.Instant?>(nil)

        func didFinishLaunching(_ application: RunwayApplication) async {
            self.requested.withLock { $0 = ContinuousClock.now }
            try? application.scheduleRefresh(after: .milliseconds(300))
        }
    }

    @Test func W1_W4_aSuspendedEmbeddedAppIsWokenAndSuspendedWhenItCompletes() async throws {
        let scheduler = try RunwayScheduler(settings: self.settings)
        let watcher = TransitionWatcher(scheduler)
        let delegate = WakeDelegate()
        let application = try scheduler.register(AppDescriptor(id: self.mail), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        // L9: Home once the launch is done (active), not while it is still inactive.
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        #expect(await watcher.first { $0.to == .suspended } != nil)
        let token = try scheduler.wake(self.mail, for: .remoteNotification, payload: #"{"id":1}"#)
        let woken = await watcher.first { $0.cause == .backgroundWake(.remoteNotification) }
        #expect(woken?.from == .suspended && woken?.to == .background)
        #expect(await eventually { delegate.tokens.values == [token] })
        #expect(delegate.wakes.values == [#"remote-notification {"id":1}"#])
        // Not completed: still in the background, with the wake-up outstanding.
        #expect(application.state == .background)
        #expect(scheduler.status().first?.outstandingWakes == 1)
        try application.completeBackgroundWake(token)
        let resuspended = await watcher.first { $0.from == .background && $0.to == .suspended }
        #expect(resuspended?.cause == .noOutstandingTasks)
        #expect(throws: SchedulerError.self) { try application.completeBackgroundWake(WakeToken(rawValue: 99)) }
        await scheduler.shutdown()
    }

    @Test func W7_anEmbeddedAppsRefreshWakesItNoEarlierThanItAsked() async throws {
        let scheduler = try RunwayScheduler(settings: self.settings)
        let watcher = TransitionWatcher(scheduler)
        let delegate = RefreshingDelegate()
        try scheduler.register(AppDescriptor(id: self.mail), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        #expect(await eventually { scheduler.status().first?.nextRefresh != nil })
        _ = await watcher.first { $0.app == self.mail && $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        let refreshed = await watcher.first { $0.cause == .backgroundWake(.refresh) }
        let woken = ContinuousClock.now
        #expect(refreshed?.from == .suspended)
        let requested = try #require(delegate.requested.withLock { $0 })
        #expect(woken - requested >= .milliseconds(300))
        // The default handling completes at once: suspended again.
        let refreshedAt = refreshed?.at ?? .distantFuture
        let again = await watcher.first { $0.from == .background && $0.to == .suspended && $0.at >= refreshedAt }
        #expect(again?.cause == .noOutstandingTasks)
        #expect(scheduler.status().first?.nextRefresh == nil)
        await scheduler.shutdown()
    }
}
