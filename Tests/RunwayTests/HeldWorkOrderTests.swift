import Runway
@_spi(Driver) import RunwayCore
import Testing

/// A2 on the real loop: work an embedded app submitted while suspended runs only once the app has handled its
/// resume, after `didBecomeActive` returns on a summon and after `backgroundWake` returns on a wake-up.
@Suite struct HeldWorkOrderTests {
    /// Records its resume messages, each with a beginning and an end; `didBecomeActive` and `backgroundWake` take
    /// 50 ms, so that held work started any earlier lands inside them.
    final class SlowResumeDelegate: RunwayAppDelegate {
        let log = Recorder<String>()

        func willEnterForeground(_ application: RunwayApplication) async {
            self.log.append("willEnterForeground")
        }

        func didBecomeActive(_ application: RunwayApplication) async {
            self.log.append("didBecomeActive begins")
            try? await Task.sleep(for: .milliseconds(50))
            self.log.append("didBecomeActive ends")
        }

        func didReceiveBackgroundWake(
            reason: WakeReason,
            payload: String,
            token: WakeToken,
            _ application: RunwayApplication
        ) async {
            self.log.append("backgroundWake begins")
            try? await Task.sleep(for: .milliseconds(50))
            self.log.append("backgroundWake ends")
            try? application.completeBackgroundWake(token)
        }
    }

    private let mail: AppID = "com.example.mail"

    /// A scheduler with the app launched, sent Home and suspended.
    private func suspended() async throws -> (
        RunwayScheduler, RunwayApplication, SlowResumeDelegate, TransitionWatcher
    ) {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let delegate = SlowResumeDelegate()
        let application = try scheduler.register(AppDescriptor(id: self.mail), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        _ = await watcher.first { $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        _ = await watcher.first { $0.to == .suspended }
        return (scheduler, application, delegate, watcher)
    }

    @Test func A2_heldWorkRunsAfterDidBecomeActiveReturnsOnASummon() async throws {
        let (scheduler, application, delegate, _) = try await self.suspended()
        let before = delegate.log.values.count
        #expect(application.executor.submit { delegate.log.append("held work") })
        try scheduler.perform(.summon, on: self.mail)
        #expect(await eventually { delegate.log.values.contains("held work") }, "\(delegate.log.values)")
        // Expected order: willEnterForeground, didBecomeActive begins and ends, then the held work.
        #expect(
            Array(delegate.log.values.dropFirst(before)) == [
                "willEnterForeground", "didBecomeActive begins", "didBecomeActive ends", "held work",
            ]
        )
        await scheduler.shutdown()
    }

    @Test func A2_heldWorkRunsAfterBackgroundWakeReturnsOnAWakeUp() async throws {
        let (scheduler, application, delegate, watcher) = try await self.suspended()
        let before = delegate.log.values.count
        #expect(application.executor.submit { delegate.log.append("held work") })
        _ = try scheduler.wake(self.mail, for: .fetch, payload: "")
        #expect(await eventually { delegate.log.values.contains("held work") }, "\(delegate.log.values)")
        // Expected order: backgroundWake begins and ends, then the held work.
        #expect(
            Array(delegate.log.values.dropFirst(before)) == [
                "backgroundWake begins", "backgroundWake ends", "held work",
            ]
        )
        _ = await watcher.first { $0.from == .background && $0.to == .suspended && $0.cause == .noOutstandingTasks }
        await scheduler.shutdown()
    }
}
