// Groups 3 and 4: memory per outstanding task, and 100,000 tasks expiring at one instant, Runway beside NIO.

import Benchmark
import NIOCore
import NIOEmbedded
@_spi(Driver) @_spi(Benchmarks) import RunwayCore

// MARK: 3. memory per outstanding task

func registerMemoryPerTask() {
    // Each benchmark runs in its own process, and `peakMemoryResident` is the highest resident size sampled
    // (every ~5 ms) over that process's whole run, not per run of the closure. A second run would only add
    // what the allocator kept from the first, so each measures exactly one run, with no warmup.
    let configuration = Benchmark.Configuration(
        metrics: [.peakMemoryResident, .wallClock, .mallocCountTotal],
        warmupIterations: 0,
        maxDuration: .seconds(3),
        maxIterations: 1,
        thresholds: memoryCheckTolerances
    )

    Benchmark("memory-per-task-1m.baseline-runway-scheduler-only", configuration: configuration) { benchmark in
        let scheduler = backgroundScheduler()
        blackHole(scheduler)
    }

    Benchmark("memory-per-task-1m.runway-core-requested", configuration: configuration) { benchmark in
        var scheduler = backgroundScheduler()
        beginTasks(heldTaskCount - 1, in: &scheduler)
        blackHole(scheduler)
    }

    Benchmark("memory-per-task-1m.baseline-nio-embedded-only", configuration: configuration) { benchmark in
        let loop = EmbeddedEventLoop()
        blackHole(loop)
        benchmark.stopMeasurement()
        try! loop.syncShutdownGracefully()
    }

    Benchmark("memory-per-task-1m.nio-embedded-schedule", configuration: configuration) { benchmark in
        let loop = EmbeddedEventLoop()
        for _ in 0..<heldTaskCount {
            loop.scheduleTask(in: .seconds(30)) {}
        }
        blackHole(loop)
        benchmark.stopMeasurement()
        // Shutting down fails (cancels) the outstanding tasks; not measured.
        try! loop.syncShutdownGracefully()
    }
}

// MARK: 4. expiry when 100k expire at once

func registerExpiryAtOnce() {
    let configuration = Benchmark.Configuration(warmupIterations: 0, maxDuration: .seconds(3), maxIterations: 10)

    // The scheduler warns per app: at the warning instant it queues one `backgroundTaskWillExpire` per
    // outstanding task, in task order, and delivers the first (the others follow one at a time as each
    // returns, L2).
    Benchmark("expiry-at-once-100k.runway-core-clock-past-warning", configuration: configuration) {
        benchmark in
        var scheduler = backgroundScheduler()
        beginTasks(expiryCount - 1, in: &scheduler)
        let warning = Instant.origin + .seconds(25)
        benchmark.startMeasurement()
        let actions = scheduler.clockAdvanced(to: warning)
        benchmark.stopMeasurement()
        precondition(deliveryToken(in: actions) != nil, "Expected the first expiration message delivered: \(actions)")
    }

    // The same, plus the work NIO's `advanceTime` does for its tasks: every expiration message delivered and
    // returned (a driver whose handlers return at once), so all handlers run inside the measurement. Also at
    // 10k, to show how the cost grows with the number of tasks.
    for count in [expiryCount, expiryCount / 10] {
        Benchmark(
            "expiry-at-once-\(count / 1_000)k.runway-core-every-expiration-returned",
            configuration: .init(warmupIterations: 0, maxDuration: .seconds(3), maxIterations: 10)
        ) { benchmark in
            var scheduler = backgroundScheduler()
            beginTasks(count - 1, in: &scheduler)
            let warning = Instant.origin + .seconds(25)
            benchmark.startMeasurement()
            let returned = acknowledgeAll(scheduler.clockAdvanced(to: warning), in: &scheduler, now: warning)
            benchmark.stopMeasurement()
            precondition(returned == count, "Expected \(count) expirations delivered, got \(returned)")
        }
    }

    Benchmark("expiry-at-once-100k.runway-deadlinequeue-drain-due", configuration: configuration) { benchmark in
        var queue = DeadlineQueue<Int>()
        let deadline = Instant.origin + .seconds(30)
        for index in 0..<expiryCount {
            _ = queue.insert(index, at: deadline)
        }
        benchmark.startMeasurement()
        let due = queue.drainDue(now: deadline)
        benchmark.stopMeasurement()
        precondition(due.count == expiryCount, "Expected \(expiryCount) due entries, got \(due.count)")
    }

    Benchmark("expiry-at-once-100k.nio-embedded-advance-time", configuration: configuration) { benchmark in
        let loop = EmbeddedEventLoop()
        var fired = 0
        for _ in 0..<expiryCount {
            loop.scheduleTask(in: .seconds(30)) { fired += 1 }
        }
        benchmark.startMeasurement()
        loop.advanceTime(by: .seconds(30))
        benchmark.stopMeasurement()
        precondition(fired == expiryCount, "Expected \(expiryCount) tasks run, got \(fired)")
        try! loop.syncShutdownGracefully()
    }
}
