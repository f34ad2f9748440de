// Groups 1 and 2: begin+end pairs, and cancelling 100,000 armed deadlines, Runway beside NIO.

import Benchmark
import NIOCore
import NIOEmbedded
import NIOPosix
@_spi(Driver) @_spi(Benchmarks) import RunwayCore

// MARK: 1. begin+end pairs

func registerBeginEndPairs() {
    Benchmark("begin-end-pairs-10k.runway-core-requested-ended") { benchmark in
        var scheduler = backgroundScheduler()
        benchmark.startMeasurement()
        for _ in 0..<pairCount {
            let grant = scheduler.backgroundTaskRequested(name: "pair", by: benchmarkApp, now: inBackground)
            blackHole(try! scheduler.backgroundTaskEnded(grant.id, by: benchmarkApp, now: inBackground))
        }
        benchmark.stopMeasurement()
        precondition(scheduler.state(of: benchmarkApp) == .background, "The holding task should keep the app up")
    }

    Benchmark("begin-end-pairs-10k.nio-embedded-schedule-cancel") { benchmark in
        let loop = EmbeddedEventLoop()
        benchmark.startMeasurement()
        for _ in 0..<pairCount {
            let scheduled = loop.scheduleTask(in: .seconds(30)) {}
            scheduled.cancel()
        }
        benchmark.stopMeasurement()
        try! loop.syncShutdownGracefully()
    }

    Benchmark("begin-end-pairs-10k.nio-mtelg1-on-loop-schedule-cancel") { benchmark in
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        // Touch the loop once so its thread is running before the measurement.
        try! loop.submit {}.wait()
        benchmark.startMeasurement()
        try! loop.submit {
            for _ in 0..<pairCount {
                let scheduled = loop.scheduleTask(in: .seconds(30)) {}
                scheduled.cancel()
            }
        }.wait()
        benchmark.stopMeasurement()
        try! group.syncShutdownGracefully()
    }
}

// MARK: 2. cancel at scale

func registerCancelAtScale() {
    let configuration = Benchmark.Configuration(warmupIterations: 0, maxDuration: .seconds(3), maxIterations: 10)

    Benchmark("cancel-at-scale-100k-random.runway-deadlinequeue-cancel", configuration: configuration) {
        benchmark in
        let plan = cancelPlan(count: cancelCount)
        var queue = DeadlineQueue<Int>()
        let handles = plan.deadlinesNanoseconds.enumerated().map { index, nanoseconds in
            queue.insert(index, at: Instant(nanosecondsSinceOrigin: nanoseconds))
        }
        benchmark.startMeasurement()
        for index in plan.order {
            blackHole(queue.cancel(handles[index]))
        }
        benchmark.stopMeasurement()
        precondition(queue.isEmpty, "Expected every entry cancelled, \(queue.count) left")
    }

    // The scheduler-level equivalent of NIO's cancel: a task arms no timer of its own (its app's background
    // period has two), so ending one is the scheduler's cancel. Same count and same seeded order as the rows
    // above; the last end suspends the app (B5) and is measured too.
    Benchmark("cancel-at-scale-100k-outstanding.runway-core-ended", configuration: configuration) {
        benchmark in
        let plan = cancelPlan(count: cancelCount)
        let fixture = backgroundScheduler(tasksBegunInForeground: cancelCount)
        var scheduler = fixture.scheduler
        let tasks = fixture.tasks
        benchmark.startMeasurement()
        for index in plan.order {
            blackHole(try! scheduler.backgroundTaskEnded(tasks[index], by: benchmarkApp, now: inBackground))
        }
        benchmark.stopMeasurement()
        let state = scheduler.state(of: benchmarkApp)
        precondition(state == .suspended, "Expected the app suspended after the last end: \(String(describing: state))")
    }

    Benchmark(
        "cancel-at-scale-100k-random.nio-embedded-scheduled-cancel",
        configuration: configuration
    ) { benchmark in
        let plan = cancelPlan(count: cancelCount)
        let loop = EmbeddedEventLoop()
        let scheduled = plan.deadlinesNanoseconds.map { nanoseconds in
            loop.scheduleTask(deadline: .uptimeNanoseconds(nanoseconds)) {}
        }
        benchmark.startMeasurement()
        for index in plan.order {
            scheduled[index].cancel()
        }
        benchmark.stopMeasurement()
        try! loop.syncShutdownGracefully()
    }
}
