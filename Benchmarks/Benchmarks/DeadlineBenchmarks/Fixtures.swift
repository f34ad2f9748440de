// The Runway fixture every scheduler benchmark starts from (one embedded app in the background), and the seeded
// plan shared by Runway's and NIO's cancel rows.

@_spi(Driver) @_spi(Benchmarks) import RunwayCore
@_spi(Driver) @_spi(Benchmarks) import RunwayTestKit

// MARK: Runway fixtures

let benchmarkApp: AppID = "bench.app"

/// An instant after the app entered the background and before its expiration warning (25 s with the default
/// settings: a 30 s budget and a 5 s lead).
let inBackground = Instant.origin + .milliseconds(1)

/// The default settings, except that one app may hold every task a benchmark begins (the default
/// `TaskLimitPerApp` of 1,000 protects a daemon, not a measurement of 1M outstanding tasks).
let benchmarkSettings = SchedulerSettings(taskLimitPerApp: 2_000_000)

/// A scheduler with one embedded app in the background that holds one task, so it stays in the background (B5).
///
/// The app is launched, begins its holding task while active (B2: it costs nothing there), and enters the
/// background; every message is acknowledged, so nothing is in flight and no entry-grace timer is armed. The
/// only armed timers are the period's expiration warning (25 s) and budget deadline (30 s).
func backgroundScheduler() -> Scheduler {
    var scheduler = Scheduler(settings: benchmarkSettings)
    try! scheduler.register(AppDescriptor(id: benchmarkApp))
    acknowledgeAll(try! scheduler.commandReceived(.launch, for: benchmarkApp, now: .origin), in: &scheduler)
    let holder = scheduler.backgroundTaskRequested(name: "holder", by: benchmarkApp, now: .origin)
    precondition(
        holder.id != .invalid,
        "Expected the holding task to begin; refusal=\(String(describing: holder.refusal))"
    )
    acknowledgeAll(holder.actions, in: &scheduler)
    acknowledgeAll(try! scheduler.commandReceived(.enterBackground, for: benchmarkApp, now: .origin), in: &scheduler)
    precondition(
        scheduler.state(of: benchmarkApp) == .background,
        "Expected the app in the background, got \(String(describing: scheduler.state(of: benchmarkApp)))"
    )
    return scheduler
}

/// Returns every delivered message at once, the way an embedded app whose methods return immediately would,
/// until nothing is in flight. Returns how many messages were acknowledged.
@discardableResult
func acknowledgeAll(_ actions: [Action], in scheduler: inout Scheduler, now: Instant = .origin) -> Int {
    var acknowledged = 0
    var next = actions
    while let token = deliveryToken(in: next) {
        next = scheduler.messageReturned(token, from: benchmarkApp, now: now)
        acknowledged += 1
    }
    return acknowledged
}

/// The token of the one `deliver` action among `actions` (one message is in flight per app, L2).
func deliveryToken(in actions: [Action]) -> MessageToken? {
    for action in actions {
        if case .deliver(_, _, let token) = action { return token }
    }
    return nil
}

/// A scheduler with one embedded app in the background that holds `count` tasks, all begun while it was
/// active (B2), and their ids in begin order.
///
/// Launched and acknowledged; the tasks are begun at the origin in `active`, then `enterBackground` starts the
/// background period (warning at 25 s, deadline at 30 s) and its messages are acknowledged. Ending every task
/// suspends the app (B5).
func backgroundScheduler(tasksBegunInForeground count: Int) -> (scheduler: Scheduler, tasks: [BackgroundTaskID]) {
    var scheduler = Scheduler(settings: benchmarkSettings)
    try! scheduler.register(AppDescriptor(id: benchmarkApp))
    acknowledgeAll(try! scheduler.commandReceived(.launch, for: benchmarkApp, now: .origin), in: &scheduler)
    var tasks: [BackgroundTaskID] = []
    tasks.reserveCapacity(count)
    for _ in 0..<count {
        let grant = scheduler.backgroundTaskRequested(name: "task", by: benchmarkApp, now: .origin)
        precondition(grant.id != .invalid, "Expected a task; refusal=\(String(describing: grant.refusal))")
        acknowledgeAll(grant.actions, in: &scheduler)
        tasks.append(grant.id)
    }
    acknowledgeAll(try! scheduler.commandReceived(.enterBackground, for: benchmarkApp, now: .origin), in: &scheduler)
    precondition(
        scheduler.state(of: benchmarkApp) == .background,
        "Expected the app in the background, got \(String(describing: scheduler.state(of: benchmarkApp)))"
    )
    return (scheduler, tasks)
}

/// `count` more background tasks on the benchmark app, begun at `inBackground`.
func beginTasks(_ count: Int, in scheduler: inout Scheduler) {
    for _ in 0..<count {
        let grant = scheduler.backgroundTaskRequested(name: "task", by: benchmarkApp, now: inBackground)
        precondition(grant.id != .invalid, "Expected a task; refusal=\(String(describing: grant.refusal))")
    }
}

// MARK: Seeded randomness

/// `count` deadlines in nanoseconds, spread over 1 s ..< 61 s, and the order in which to cancel them.
/// The same seed gives Runway and NIO the same deadlines and the same order.
func cancelPlan(count: Int) -> (deadlinesNanoseconds: [UInt64], order: [Int]) {
    var generator = SeededRandom(seed: 0x5EED_0001)
    let deadlines = (0..<count).map { _ in 1_000_000_000 + generator.next() % 60_000_000_000 }
    var order = Array(0..<count)
    order.shuffle(using: &generator)
    return (deadlines, order)
}
