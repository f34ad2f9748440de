// The core's two hot operations at 100,000 outstanding tasks, for callgrind (instructions per operation) and for a
// plain timing that can be run interleaved with another build of the same program (before/after a change).
//
// Fixture: one `Scheduler` with one embedded app that begins 100,000 tasks while active (B2), enters the background
// (warning at 25 s, budget deadline at 30 s) and has every delivered message returned at once, so nothing is in
// flight. Then:
// - `pairs K`: K × (`backgroundTaskRequested` + `backgroundTaskEnded`) at 1 ms, before the warning;
// - `expiry`: `clockAdvanced(to: 25 s)` (the warning queues one `backgroundTaskWillExpire` per task and delivers
//   the first), then every delivered expiration returned with `messageReturned` (a handler that returns at once),
//   until all 100,000 have been delivered;
// - `cancel`: every task ended in a seeded random order (the last end suspends the app), as in
//   `cancel-at-scale-100k-outstanding`;
// - `setup`: the fixture only.
// Scripts/instructions.py runs it under `valgrind --tool=callgrind` and takes differences, so that the setup cancels
// out: pair = (Ir(pairs 2K) - Ir(pairs K)) / K; expiry = (Ir(expiry) - Ir(setup)) / 100,000.
//
// `pairs-into K`, `expiry-into`, `time-into`: the same through the calls that write the actions into a buffer the
// caller keeps (`backgroundTaskRequested(name:by:now:into:)` and the others), which is what `ActionRunner` uses.
//
// `time [ROUNDS]`: each round builds a fresh fixture and times 10,000 pairs, then (another fresh fixture) the whole
// expiry of 100,000, with `ContinuousClock`; prints the median and spread of the rounds in nanoseconds per
// operation as one JSON line.
//
// Build: `cd Benchmarks && swift build -c release -j 1 --product CoreInstructions`. A plain executable under
// Sources/ (package-benchmark would take a target in Benchmarks/ for a benchmark).

@_spi(Driver) import RunwayCore

let outstanding = 100_000
let app: AppID = "bench.app"
let inBackground = Instant.origin + .milliseconds(1)
let warning = Instant.origin + .seconds(25)

/// The fixture: `outstanding` tasks begun while active, then in the background with nothing in flight.
@inline(never)
func fixture() -> Scheduler {
    var scheduler = Scheduler(settings: SchedulerSettings(taskLimitPerApp: 2_000_000))
    try! scheduler.register(AppDescriptor(id: app))
    returnAll(try! scheduler.commandReceived(.launch, for: app, now: .origin), in: &scheduler, now: .origin)
    for _ in 0..<outstanding {
        let grant = scheduler.backgroundTaskRequested(name: "task", by: app, now: .origin)
        precondition(grant.id != .invalid, "Expected a task; refusal=\(String(describing: grant.refusal))")
        returnAll(grant.actions, in: &scheduler, now: .origin)
    }
    returnAll(try! scheduler.commandReceived(.enterBackground, for: app, now: .origin), in: &scheduler, now: .origin)
    precondition(scheduler.state(of: app) == .background, "Expected the app in the background")
    return scheduler
}

/// Returns every delivered message at once until nothing is in flight; returns how many were returned.
@discardableResult
func returnAll(_ actions: [Action], in scheduler: inout Scheduler, now: Instant) -> Int {
    var returned = 0
    var next = actions
    while let token = deliveryToken(in: next) {
        next = scheduler.messageReturned(token, from: app, now: now)
        returned += 1
    }
    return returned
}

func deliveryToken(in actions: [Action]) -> MessageToken? {
    for action in actions {
        if case .deliver(_, _, let token) = action { return token }
    }
    return nil
}

/// `count` begin+end pairs; returns a checksum so that nothing is optimised away.
@inline(never)
func pairs(_ count: Int, in scheduler: inout Scheduler) -> UInt64 {
    var checksum: UInt64 = 0
    for _ in 0..<count {
        let grant = scheduler.backgroundTaskRequested(name: "pair", by: app, now: inBackground)
        let actions = try! scheduler.backgroundTaskEnded(grant.id, by: app, now: inBackground)
        checksum &+= grant.id.rawValue &+ UInt64(actions.count)
    }
    precondition(scheduler.state(of: app) == .background, "Expected the app still in the background")
    return checksum
}

/// Every task of the fixture ended, in a seeded random order (the scheduler-level cancel of
/// `cancel-at-scale-100k-outstanding`); the last end suspends the app (B5). Returns how many ended.
@inline(never)
func cancelAll(in scheduler: inout Scheduler) -> Int {
    // The fixture's tasks are the first ids issued: 1...outstanding. A SplitMix64-driven Fisher-Yates shuffle.
    var order = (1...UInt64(outstanding)).map(BackgroundTaskID.init(rawValue:))
    var state: UInt64 = 0x5EED_0001
    for index in stride(from: order.count - 1, to: 0, by: -1) {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        order.swapAt(index, Int((mixed ^ (mixed >> 31)) % UInt64(index + 1)))
    }
    for id in order {
        _ = try! scheduler.backgroundTaskEnded(id, by: app, now: inBackground)
    }
    precondition(scheduler.state(of: app) == .suspended, "Expected the app suspended after the last end")
    return order.count
}

/// `pairs(_:in:)` through the calls that write their actions into a buffer the caller keeps (`into:`).
@inline(never)
func pairsInto(_ count: Int, in scheduler: inout Scheduler) -> UInt64 {
    var checksum: UInt64 = 0
    var actions: [Action] = []
    for _ in 0..<count {
        let grant = scheduler.backgroundTaskRequested(name: "pair", by: app, now: inBackground, into: &actions)
        try! scheduler.backgroundTaskEnded(grant.id, by: app, now: inBackground, into: &actions)
        checksum &+= grant.id.rawValue &+ UInt64(actions.count)
    }
    precondition(scheduler.state(of: app) == .background, "Expected the app still in the background")
    return checksum
}

/// `expiry(in:)` through the calls that write their actions into a buffer the caller keeps (`into:`).
@inline(never)
func expiryInto(in scheduler: inout Scheduler) -> Int {
    var actions: [Action] = []
    scheduler.clockAdvanced(to: warning, into: &actions)
    var returned = 0
    while let token = deliveryToken(in: actions) {
        scheduler.messageReturned(token, from: app, now: warning, into: &actions)
        returned += 1
    }
    precondition(returned == outstanding, "Expected \(outstanding) expirations, got \(returned)")
    return returned
}

/// The warning and every expiration returned; returns how many were delivered.
@inline(never)
func expiry(in scheduler: inout Scheduler) -> Int {
    let returned = returnAll(scheduler.clockAdvanced(to: warning), in: &scheduler, now: warning)
    precondition(returned == outstanding, "Expected \(outstanding) expirations, got \(returned)")
    return returned
}

func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}

func summary(_ samples: [Double]) -> String {
    let sorted = samples.sorted()
    let median = sorted[sorted.count / 2]
    func rounded(_ value: Double) -> String { String(Double(Int(value * 10)) / 10) }
    return "{\"median\": \(rounded(median)), \"min\": \(rounded(sorted[0])), \"max\": \(rounded(sorted.last!))}"
}

func time(rounds: Int, into: Bool) {
    let clock = ContinuousClock()
    let pairCount = 10_000
    var pairSamples: [Double] = []
    var expirySamples: [Double] = []
    var checksum: UInt64 = 0
    for _ in 0..<rounds {
        var scheduler = fixture()
        let start = clock.now
        checksum &+= into ? pairsInto(pairCount, in: &scheduler) : pairs(pairCount, in: &scheduler)
        pairSamples.append(nanoseconds(clock.now - start) / Double(pairCount))

        var expiring = fixture()
        let expiryStart = clock.now
        checksum &+= UInt64(into ? expiryInto(in: &expiring) : expiry(in: &expiring))
        expirySamples.append(nanoseconds(clock.now - expiryStart) / Double(outstanding))
    }
    print(
        "{\"calls\": \"\(into ? "into" : "array")\", \"rounds\": \(rounds), \"pair_ns\": \(summary(pairSamples)),"
            + " \"expiry_ns\": \(summary(expirySamples)), \"checksum\": \(checksum)}"
    )
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "setup":
    let scheduler = fixture()
    print("setup: \(scheduler.state(of: app).map { "\($0)" } ?? "nil")")
case "pairs":
    guard arguments.count == 2, let count = Int(arguments[1]), count >= 0 else {
        fatalError("usage: CoreInstructions pairs K")
    }
    var scheduler = fixture()
    print("pairs \(count): checksum \(pairs(count, in: &scheduler))")
case "expiry":
    var scheduler = fixture()
    print("expiry: \(expiry(in: &scheduler)) returned")
case "cancel":
    var scheduler = fixture()
    print("cancel: \(cancelAll(in: &scheduler)) ended")
case "pairs-into":
    guard arguments.count == 2, let count = Int(arguments[1]), count >= 0 else {
        fatalError("usage: CoreInstructions pairs-into K")
    }
    var scheduler = fixture()
    print("pairs-into \(count): checksum \(pairsInto(count, in: &scheduler))")
case "expiry-into":
    var scheduler = fixture()
    print("expiry-into: \(expiryInto(in: &scheduler)) returned")
case "time":
    time(rounds: arguments.count > 1 ? Int(arguments[1]) ?? 11 : 11, into: false)
case "time-into":
    time(rounds: arguments.count > 1 ? Int(arguments[1]) ?? 11 : 11, into: true)
default:
    fatalError(
        "usage: CoreInstructions setup | pairs K | pairs-into K | expiry | expiry-into | cancel | time [ROUNDS]"
            + " | time-into [ROUNDS]"
    )
}
