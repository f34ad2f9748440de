import Runway
@_spi(Driver) import RunwayCore
import RunwayLocking
import Testing

/// State restoration of embedded apps on the real loop (R1-R3): `preserveState` from `didEnterBackground`, and the
/// launch after a purge reading `application.restoration` inside `didFinishLaunching`.
@Suite struct EmbeddedRestorationTests {
    let mail: AppID = "com.example.mail"

    /// Counts its launches: reads the restored count at launch, preserves count + 1 when entering the background.
    final class CountingDelegate: RunwayAppDelegate {
        let launches = Recorder<String>()
        let count = RunwayLock(0)
        let refusal = RunwayLock<SchedulerError?>(nil)

        func didFinishLaunching(_ application: RunwayApplication) async {
            let restored = application.restoration
            let count = restored.map { Int(String(decoding: $0.state, as: UTF8.self)) ?? -1 } ?? 0
            self.count.withLock { $0 = count }
            self.launches.append("\(restored.map { "\($0.lastRunEnded)" } ?? "none") \(count)")
        }

        func didEnterBackground(_ application: RunwayApplication) async {
            let next = self.count.withLock { $0 + 1 }
            try? await application.preserveState(Array(String(next).utf8))
            do {
                try await application.preserveState(Array(repeating: 0, count: (1 << 20) + 1))
            } catch {
                self.refusal.withLock { $0 = error }
            }
        }
    }

    @Test func R2_anEmbeddedAppPurgedComesBackWithTheStateItPreserved() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        let watcher = TransitionWatcher(scheduler)
        let delegate = CountingDelegate()
        try scheduler.register(AppDescriptor(id: self.mail), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        _ = await watcher.first { $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        _ = await watcher.first { $0.to == .suspended }
        // R1: the limit is named, and the state stays as preserved before.
        #expect(delegate.refusal.withLock { $0?.code } == .stateTooLarge)
        #expect(delegate.refusal.withLock { $0?.description.contains("StateRestorationByteLimit") } == true)
        #expect(scheduler.purge() == self.mail)
        let purged = await watcher.first { $0.to == .notRunning }
        #expect(purged?.runEnding == .purged && purged?.preservedStateKept == true)
        try scheduler.perform(.launch, on: self.mail)
        let relaunch = await watcher.first { $0.from == .notRunning && $0.restoration != nil }
        #expect(relaunch?.restoration == .purged)
        #expect(await eventually { delegate.launches.values == ["none 0", "purged 1"] }, "\(delegate.launches.values)")
        // R3: a terminate discards it; the next launch starts from nothing.
        _ = await watcher.first { $0.to == .active && $0.restoration == nil && $0.from == .inactive }
        try scheduler.perform(.terminate, on: self.mail)
        _ = await watcher.first { $0.to == .notRunning && $0.preservedStateKept == false }
        try scheduler.perform(.launch, on: self.mail)
        #expect(await eventually { delegate.launches.values.count == 3 })
        #expect(delegate.launches.values.last == "none 0")
        await scheduler.shutdown()
    }

    @Test func R1_aStoredStateThatCannotBeReadIsNotRestoredAndTheLaunchSaysSo() async throws {
        let scheduler = try RunwayScheduler(settings: shortSettings)
        // A store whose file is torn or changed after it was written: saved, but never read back.
        _ = scheduler.bridge.sync {
            $0.setStateRestoration(
                StateRestorationHooks(byteLimit: 1 << 20, save: { $3(nil) }, discard: { $1(nil) }, load: { _ in nil })
            )
        }
        let watcher = TransitionWatcher(scheduler)
        let delegate = CountingDelegate()
        try scheduler.register(AppDescriptor(id: self.mail), delegate: delegate)
        try scheduler.perform(.launch, on: self.mail)
        _ = await watcher.first { $0.to == .active }
        try scheduler.perform(.home, on: self.mail)
        _ = await watcher.first { $0.to == .suspended }
        #expect(scheduler.purge() == self.mail)
        _ = await watcher.first { $0.to == .notRunning }
        try scheduler.perform(.launch, on: self.mail)
        let relaunch = await watcher.first { $0.from == .notRunning }
        #expect(relaunch != nil && relaunch?.restoration == nil, "\(String(describing: relaunch))")
        #expect(await eventually { delegate.launches.values == ["none 0", "none 0"] }, "\(delegate.launches.values)")
        let status = scheduler.status().first { $0.app == self.mail }
        #expect(status?.restoredFrom == nil)
        #expect(status?.hasPreservedState == false)
        await scheduler.shutdown()
    }
}
