import Runway
@_spi(Driver) import RunwayCore
import Synchronization

/// A delegate that records every message it receives, in order, and can act in `didEnterBackground`.
final class RecordingDelegate: RunwayAppDelegate {
    let log = Recorder<String>()
    private let onBackground: @Sendable (RunwayApplication) async -> Void

    init(onBackground: @escaping @Sendable (RunwayApplication) async -> Void = { _ in }) {
        self.onBackground = onBackground
    }

    var messages: [String] { self.log.values }

    func didFinishLaunching(_ application: RunwayApplication) async { self.log.append("didFinishLaunching") }
    func willResignActive(_ application: RunwayApplication) async { self.log.append("willResignActive") }
    func didBecomeActive(_ application: RunwayApplication) async { self.log.append("didBecomeActive") }
    func didEnterBackground(_ application: RunwayApplication) async {
        self.log.append("didEnterBackground")
        await self.onBackground(application)
    }
    func willEnterForeground(_ application: RunwayApplication) async { self.log.append("willEnterForeground") }
    func willTerminate(_ application: RunwayApplication) async { self.log.append("willTerminate") }
    func didReceiveMemoryWarning(_ application: RunwayApplication) async { self.log.append("didReceiveMemoryWarning") }
    func didReceive(notification name: String, payload: String, _ application: RunwayApplication) async {
        self.log.append("notification(\(name)=\(payload))")
    }
}

/// Collects a scheduler's transitions and lets a test wait for one. The timeout only bounds a failing
/// test; no assertion depends on how long anything took.
final class TransitionWatcher: Sendable {
    private let seen = Recorder<TransitionEvent>()
    private let reader: Task<Void, Never>

    init(_ scheduler: RunwayScheduler) {
        let stream = scheduler.transitions()
        let seen = self.seen
        self.reader = Task {
            for await event in stream { seen.append(event) }
        }
    }

    var events: [TransitionEvent] { self.seen.values }

    /// Every event, once the stream has finished (the scheduler shut down): nothing is still in flight.
    func eventsAfterShutdown() async -> [TransitionEvent] {
        await self.reader.value
        return self.seen.values
    }

    /// Waits until an event matching `predicate` was seen; returns it, or nil after `timeout`.
    func first(
        timeout: Duration = .seconds(10),
        where predicate: @escaping @Sendable (TransitionEvent) -> Bool
    ) async -> TransitionEvent? {
        _ = await eventually(timeout: timeout) { self.seen.values.contains(where: predicate) }
        return self.seen.values.first(where: predicate)
    }

    deinit { self.reader.cancel() }
}

/// Polls `condition` every 2 ms until true or `timeout`; the timeout only bounds a failing test.
func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + timeout
    while clock.now < end {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// Short budgets for real-loop tests: 500 ms budget, 250 ms warning lead, 500 ms graces. Delegate calls run on
/// the shared cooperative pool, so the margins leave room for a busy machine: a budget shorter than the time
/// the pool takes to start `didEnterBackground` would (correctly) suspend or kill the app first.
let shortSettings = SchedulerSettings(
    backgroundTimeBudget: .milliseconds(500),
    expirationWarningLead: .milliseconds(250),
    backgroundEntryGrace: .milliseconds(500),
    terminationGrace: .milliseconds(500)
)
