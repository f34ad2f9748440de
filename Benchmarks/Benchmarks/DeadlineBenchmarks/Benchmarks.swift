// Deadline work in RunwayCore measured beside swift-nio doing the same work.
//
// Each pair has the same name up to the dot (`<group>.<subject>`, no spaces: README.md, "Names and
// thresholds"), so the report lists them side by side:
// - "begin-end-pairs-10k": 10_000 × (begin a background task, end it) on one background app, against
//   10_000 × (`scheduleTask(in: .seconds(30))`, `cancel()`) on an `EmbeddedEventLoop` and on the one loop of
//   a `MultiThreadedEventLoopGroup` (run inside `submit {}` so that it is on the loop).
// - "cancel-at-scale-100k-…": 100_000 armed deadlines cancelled in a seeded random order: `DeadlineQueue.cancel`
//   against `Scheduled.cancel()` on an `EmbeddedEventLoop`; and the scheduler-level equivalent, one background
//   app holding 100_000 outstanding tasks that are all ended (`backgroundTaskEnded`) in the same order.
// - "memory-per-task-1m": peak resident memory with 1_000_000 outstanding tasks, beside a baseline that builds
//   only the scheduler (or only the loop); bytes per task = (task peak - baseline peak) / 1_000_000.
// - "expiry-at-once-…": 100_000 tasks that expire at one instant: the scheduler's expiration warning, the
//   `DeadlineQueue` alone (`drainDue`), and `EmbeddedEventLoop.advanceTime(by:)` running 100_000 tasks.
// - "begin-end-pairs-at-100k-outstanding", "expiry-with-handler-at-100k": the core alone at 100_000 outstanding
//   tasks (CoreAtScale.swift).
//
// `DeadlineQueue` is `@inlinable`, so this module specializes `DeadlineQueue<Int>` as any caller outside
// RunwayCore would; the scheduler's own `DeadlineQueue<TimerKey>` is specialized inside RunwayCore. The queue and
// `SeededRandom` are Benchmarks SPI, hence the `@_spi(Benchmarks)` imports.
//
// Expiration lateness on the real loop is not measured here (package-benchmark repeats a closure; lateness
// needs one long run): see the `LatenessComparison` executable in Sources/.
//
// Setup (building the scheduler, arming the entries) runs before `startMeasurement()` and is not measured.
// Every run starts from fresh state; nothing is shared between runs. The closures run on the benchmark's
// thread, so the single-owner rule of `Scheduler` and `EmbeddedEventLoop` holds.
//
// Files: this one registers the groups and holds the tolerances and sizes; Fixtures.swift builds the Runway
// scheduler every group starts from; PairsAndCancels.swift, MemoryAndExpiry.swift and CoreAtScale.swift hold the
// groups.

import Benchmark

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 1,
        scalingFactor: .one,
        maxDuration: .seconds(2),
        maxIterations: 50,
        thresholds: checkTolerances
    )
    registerBeginEndPairs()
    registerCancelAtScale()
    registerMemoryPerTask()
    registerExpiryAtOnce()
    registerCoreAtScale()
}

/// How far a run's p90 may be from the one recorded in Thresholds/ before `thresholds check` (`make bench-check`)
/// fails; without them package-benchmark allows no difference at all (`BenchmarkThresholds.strict`). Allocation
/// counts are nearly deterministic: 10 allocations more fail (one more per operation of a 10k or 100k loop is
/// thousands). Wall clock is not, on the project's shared 2-core VM: two runs minutes apart differed by up to 3.2x
/// while other builds ran (2026-11-23), so only 200% (a 3x slowdown) fails. README.md, "Names and thresholds".
/// Computed: package-benchmark's threshold types are not `Sendable`, so a global constant of them is refused.
var checkTolerances: [BenchmarkMetric: BenchmarkThresholds] {
    [
        .wallClock: .init(relative: [.p90: 200]),
        .mallocCountTotal: .init(absolute: [.p90: 10]),
    ]
}

/// The memory group's: one run each, so its wall clock is one sample (not judged: 1000%), and its allocation count
/// moves by about 10% at 200 allocations and by a thousand at 4 million (15%: one more per task is millions); peak
/// resident memory, what the group measures, 10%.
var memoryCheckTolerances: [BenchmarkMetric: BenchmarkThresholds] {
    [
        .wallClock: .init(relative: [.p90: 1_000]),
        .mallocCountTotal: .init(relative: [.p90: 15]),
        .peakMemoryResident: .init(relative: [.p90: 10]),
    ]
}

// MARK: Sizes

/// Task begin+end pairs per run.
let pairCount = 10_000
/// Armed deadlines cancelled per run.
let cancelCount = 100_000
/// Outstanding tasks held for the memory measurement.
let heldTaskCount = 1_000_000
/// Tasks (or entries) expiring at one instant.
let expiryCount = 100_000
