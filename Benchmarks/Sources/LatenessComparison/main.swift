// Expiration lateness on the real loop, Runway against swift-nio, in one process, one after the other.
//
// Runway: 10,000 embedded apps in one `RunwayScheduler`. Each is launched, begins a background task that it
// never ends, and enters the background (`UserAction.home`) with its own budget, 1 s to 3 s (seeded), so the
// 10,000 budget deadlines fall within about 2 s. At its deadline each app is terminated for overrun
// (`OverrunPolicy.terminate`, B6); lateness = the kill's transition instant (`TransitionEvent.at`: the loop's
// one clock reading for the wake-up that handled the deadline) minus (background entry + budget), where the
// entry is the `at` of the app's transition to `background` (the instant the budget started, B3).
// NIO: 10,000 `scheduleTask(deadline:)` on the one loop of a `MultiThreadedEventLoopGroup(numberOfThreads: 1)`,
// at `start + offset` with the same offsets; lateness = `NIODeadline.now()` read inside the task minus its
// deadline.
//
// The setup registers the 10,000 apps, launches them in one batch request, begins each app's task, and sends them
// all to the background in one batch request, so that every budget starts in the same loop turn, as every NIO
// deadline is scheduled in one submitted closure. Every offset is at least 1 s, so that the deadlines come after
// the loop has finished the delegate messages of the setup. The Runway report says how long the setup took and
// how many deadlines fell before it ended; those can be late because the loop was busy with setup work when their
// wake-up came.
//
// Asymmetry: Runway's lateness is one clock reading per wake-up (deadlines due together share it); NIO's is
// read in each task, after the tasks run before it in the same batch.
//
// Loop priority: `--realtime-priority P` runs both loop threads at SCHED_FIFO P (Runway's through
// `RunwayScheduler(loopPriority:)`, NIO's through `LoopThreadPriorityOutcome.apply` submitted to its loop), so both
// are measured on the same footing; without it both run at the inherited policy. Each half prints what its thread
// got.
//
// Wake-up spin: `--wakeup-spin MICROSECONDS` arms Runway's timer that much early and spins to each deadline
// (`RunwayScheduler(wakeupSpin:)`); swift-nio has no equivalent, so its half is unchanged.
//
// Kernel counters: each half prints, for its loop thread over the deadline window, the CPU time, the run delay
// (runnable but waiting for a CPU), and the voluntary and involuntary switches per deadline, and the other threads'
// voluntary switches (ThreadStats.swift): what each loop costs per wake-up, apart from the load.
//
// Order: Runway's half runs first; `--nio-first` runs swift-nio's first (lateness_series.py alternates).
//
// Run: `cd Benchmarks && swift run -c release LatenessComparison [--realtime-priority 10] [--wakeup-spin 25]` (about
// 10 s). Prints microseconds. Options.swift lists the options that change the count, spread and halves (for
// counting instructions and syscalls per deadline: Scripts/per_deadline.py). This target is under Sources/, not
// Benchmarks/, so that package-benchmark does not take it for a benchmark.

import Dispatch
import Foundation
import Logging
import NIOCore
import NIOPosix
@_spi(Processes) @_spi(Benchmarks) import Runway
@_spi(Processes) @_spi(Driver) @_spi(Benchmarks) import RunwayCore
@_spi(Benchmarks) import RunwayLoop
@_spi(Driver) @_spi(Benchmarks) import RunwayTestKit
import Synchronization

/// An embedded app whose delegate methods all return at once.
final class Quiet: RunwayAppDelegate {}

/// `nanoseconds` as microseconds with one decimal, e.g. `12.3` (truncated toward zero).
func microseconds(_ nanoseconds: Int64) -> String {
    let tenths = nanoseconds / 100
    let sign = tenths < 0 ? "-" : ""
    let magnitude = tenths.magnitude
    return "\(sign)\(magnitude / 10).\(magnitude % 10)"
}

/// One line: count, p50/p90/p99/max in microseconds, and how many were early (negative lateness).
func summary(_ name: String, _ nanoseconds: [Int64]) -> String {
    guard !nanoseconds.isEmpty else { return "\(name): n=0" }
    let sorted = nanoseconds.sorted()
    func quantile(_ q: Double) -> String {
        microseconds(sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))])
    }
    let early = sorted.filter { $0 < 0 }.count
    let quantiles = "p50=\(quantile(0.5)) p90=\(quantile(0.9)) p99=\(quantile(0.99))"
    return "\(name): n=\(sorted.count) \(quantiles) max=\(microseconds(sorted[sorted.count - 1])) us early=\(early)"
}

// MARK: Runway

/// What the event stream told about one app.
struct Observed: Sendable {
    var entered: [Instant?] = Array(repeating: nil, count: count)
    var killed: [Instant?] = Array(repeating: nil, count: count)
    var kills = 0
    /// The loop thread's kernel id, taken from the first event.
    var loopThread: Int32 = 0
}

/// The app id of index `index`, and back. The reverse is a dictionary lookup, not string parsing: it runs on the
/// loop thread for every kill, and NIO's side does no comparable work.
func appID(_ index: Int) -> AppID { AppID("bench.app.\(index)") }
let appIndices = Dictionary(uniqueKeysWithValues: (0..<count).map { (appID($0), $0) })
func appIndex(of app: AppID) -> Int? { appIndices[app] }

func measureRunway() throws -> [Int64] {
    // At warning, as `runway bench` and ProcessLifecycle run it: at info the scheduler logs every transition (a
    // formatted line, glibc's stat of /etc/localtime for the timestamp and a write to stderr on the loop thread: three
    // per app here, one with each kill), work swift-nio's side does not do.
    var logger = Logger(label: "runway.lateness")
    logger.logLevel = .warning
    let scheduler = try RunwayScheduler(
        settings: SchedulerSettings(
            // Overridden per app by `AppDescriptor.backgroundTimeBudget`.
            backgroundTimeBudget: .seconds(30),
            // The warning fires at the deadline, so that no other wake-up falls between the deadlines.
            expirationWarningLead: .zero,
            backgroundEntryGrace: .seconds(30),
            terminationGrace: .seconds(1),
            overrunPolicy: .terminate
        ),
        logger: logger,
        loopPriority: loopPriority,
        wakeupSpin: wakeupSpin
    )
    print("Runway loop thread: \(scheduler.loopPriorityOutcome), wake-up spin \(wakeupSpin.nanoseconds / 1_000) us")
    // Recorded on the loop thread itself (`observeTransitions`), like NIO's samples inside its tasks, so that no
    // other thread is woken per kill while the deadlines are measured.
    let recorded = Mutex(Observed())
    let allKilled = DispatchSemaphore(value: 0)
    scheduler.observeTransitions { event in
        guard let index = appIndex(of: event.app) else { return }
        let kills = recorded.withLock { observed -> Int? in
            if observed.loopThread == 0 { observed.loopThread = currentThreadID() }
            if event.to == .background {
                observed.entered[index] = event.at
            } else if event.to == .notRunning, event.cause == .terminated(.budgetOverrun) {
                observed.killed[index] = event.at
                observed.kills += 1
                return observed.kills
            }
            return nil
        }
        // The counting window (Options.swift) is the loop thread's work from the first kill to the last.
        if kills == 1 { latenessWindowBegin() }
        if kills == count {
            latenessWindowEnd()
            allKilled.signal()
        }
    }

    let setupStart = ContinuousClock.now
    var applications: [RunwayApplication] = []
    applications.reserveCapacity(count)
    for index in 0..<count {
        let descriptor = AppDescriptor(id: appID(index), backgroundTimeBudget: .nanoseconds(offsetsNanoseconds[index]))
        applications.append(try scheduler.register(descriptor, delegate: Quiet()))
    }
    let ids = (0..<count).map(appID)
    precondition(scheduler.perform(.launch, onEach: ids).isEmpty, "a launch was refused")
    for application in applications {
        let task = application.beginBackgroundTask(withName: "never-ends")
        precondition(task != .invalid, "Expected a task for \(application.id)")
    }
    // Every app enters the background in one request (one hop to the loop, one loop turn), as swift-nio's side
    // schedules every deadline in one submitted closure: the budgets then start together and no deadline falls
    // while the setup is still sending requests to the loop.
    precondition(scheduler.perform(.home, onEach: ids).isEmpty, "an app did not enter the background")
    // A fresh loop-clock reading, as deadline - remaining of the last app (whose deadline is >= 1 s away).
    let lastRemaining = applications[count - 1].backgroundTimeRemaining
    let setupDuration = ContinuousClock.now - setupStart
    let loopThread = recorded.withLock { $0.loopThread }
    let windowStart = ProcessCounters(loopThread: loopThread)

    // Bounded so that a lost event cannot hang the run: every deadline is within 1 s + the spread of the setup.
    let finished = allKilled.wait(timeout: .now() + .seconds(Int(60 + spreadNanoseconds / 1_000_000_000))) == .success
    let windowEnd = ProcessCounters(loopThread: loopThread)
    // Waited for on this thread: the program's top level stays synchronous, so its main thread is not handed to
    // Dispatch's main queue (valgrind cannot run that one: Scripts/per_deadline.py).
    let stopped = DispatchSemaphore(value: 0)
    Task {
        await scheduler.shutdown()
        stopped.signal()
    }
    stopped.wait()
    let observed = recorded.withLock { $0 }
    if !finished { print("Runway: timed out waiting for \(count) kills; got \(observed.kills)") }

    var lateness: [Int64] = []
    var samples: [(deadline: Instant, lateNanoseconds: Int64)] = []
    var missing = 0
    var duringSetup: [Int64] = []
    let setupEnd: Instant? = observed.entered[count - 1].map {
        $0 + .nanoseconds(offsetsNanoseconds[count - 1]) - lastRemaining
    }
    for index in 0..<count {
        guard let entered = observed.entered[index], let killed = observed.killed[index] else {
            missing += 1
            continue
        }
        let deadline = entered + .nanoseconds(offsetsNanoseconds[index])
        let late = (killed - deadline).nanoseconds
        lateness.append(late)
        samples.append((deadline, late))
        if let setupEnd, deadline <= setupEnd { duringSetup.append(late) }
    }
    let firstEntry = observed.entered.compactMap { $0 }.min()
    let lastEntry = observed.entered.compactMap { $0 }.max()
    let spread = firstEntry.flatMap { first in lastEntry.map { ($0 - first).seconds } } ?? 0
    print(
        "Runway setup: \(setupDuration) for \(count) apps; entries spread over \(spread) s; "
            + "\(duringSetup.count) deadlines fell before the setup ended; \(missing) samples missing"
    )
    // Where the worst ones fell: milliseconds after the first deadline (the window is about 2 s long).
    if let firstDeadline = samples.map(\.deadline).min() {
        let worst = samples.sorted { $0.lateNanoseconds > $1.lateNanoseconds }.prefix(5).map { sample in
            let millisecondsIn = (sample.deadline - firstDeadline).nanoseconds / 1_000_000
            return "\(microseconds(sample.lateNanoseconds)) us at +\(millisecondsIn) ms"
        }
        print("  worst: " + worst.joined(separator: ", "))
    }
    if !duringSetup.isEmpty {
        print("  " + summary("of which deadlines during setup", duringSetup))
    }
    let wakeUps = Set(observed.killed.compactMap { $0 }).count
    print("  \(wakeUps) wake-ups; " + ProcessCounters.perDeadline(from: windowStart, to: windowEnd, deadlines: count))
    return lateness
}

// MARK: NIO

/// The samples, appended on the loop thread.
final class Samples: Sendable {
    let values = Mutex<[Int64]>([])
}

func measureNIO() throws -> [Int64] {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop = group.next()
    let samples = Samples()
    let done = DispatchSemaphore(value: 0)
    let (outcome, loopThread) = try loop.submit {
        (LoopThreadPriorityOutcome.apply(loopPriority), currentThreadID())
    }.wait()
    print("swift-nio loop thread: \(outcome)")
    try loop.submit {
        let start = NIODeadline.now()
        for offset in offsetsNanoseconds {
            let deadline = start + .nanoseconds(offset)
            loop.scheduleTask(deadline: deadline) {
                let late = Int64(NIODeadline.now().uptimeNanoseconds) - Int64(deadline.uptimeNanoseconds)
                let served = samples.values.withLock { values -> Int in
                    values.append(late)
                    return values.count
                }
                if served == 1 { latenessWindowBegin() }
                if served == count {
                    latenessWindowEnd()
                    done.signal()
                }
            }
        }
    }.wait()
    let windowStart = ProcessCounters(loopThread: loopThread)
    done.wait()
    let windowEnd = ProcessCounters(loopThread: loopThread)
    try group.syncShutdownGracefully()
    print("  " + ProcessCounters.perDeadline(from: windowStart, to: windowEnd, deadlines: count))
    return samples.values.withLock { $0 }
}

// `--nio-first` runs swift-nio's half first, so that a series can alternate the order and neither loop always gets
// the minutes right after the process started.
var runway: [Int64] = []
var nio: [Int64] = []
if CommandLine.arguments.contains("--nio-first") {
    if runsNIO { nio = try measureNIO() }
    if runsRunway { runway = try measureRunway() }
} else {
    if runsRunway { runway = try measureRunway() }
    if runsNIO { nio = try measureNIO() }
}
if runsRunway { print(summary("Runway (RunwayScheduler, overrun kill per deadline)", runway)) }
if runsNIO { print(summary("swift-nio (scheduleTask(deadline:) on MultiThreadedEventLoopGroup(1))", nio)) }
