// The whole lifecycle of N plain `sleep` children on RunwayScheduler, phase by phase:
//   (each phase is one batch request, `send(_:toEach:)`, as supervisord's *AllProcesses calls are)
//   spawn      launch every app; done when each has a pid (uv_spawn returns after exec)
//   suspend    Home on every app; done when the kernel confirms each (frozen 1, or state T)
//   resume     summon every app; done when each is confirmed running again
//   terminate  terminate every app; done when each child has been reaped (notRunning)
// Usage: ProcessLifecycle [apps=200] [mechanism=signal|freezer] [rounds=1] [wait=events|poll]. Prints one JSON
// object per round with each phase's wall time in milliseconds, and this process's CPU time in each (`spawn_cpu`
// and so on: user and system time of every thread, from getrusage; the children's own time is not in it).
// Scripts/process_floor.py runs it beside the C probe and supervisord.
// The end of a phase is seen as a user of the library would see it: the scheduler's own reports, counted on its loop
// thread (`observeSuspensionConfirmations`, `observeTransitions`; PhaseCounter.swift), one wake-up per phase. `poll`
// is the earlier harness, kept for comparison: `processes()`/`status()` every 200 µs, a snapshot of every app built
// on the loop thread each time, which the C probe does not pay.

import Foundation
import Logging
@_spi(Processes) import Runway
@_spi(Driver) @_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
let count = arguments.count > 1 ? Int(arguments[1]) ?? 200 : 200
let mechanism = SuspensionMechanism(rawValue: arguments.count > 2 ? arguments[2] : "signal") ?? .signal
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1
let polls = arguments.count > 4 && arguments[4] == "poll"

@MainActor
func waitUntil(_ condition: () -> Bool) async {
    while !condition() { try? await Task.sleep(for: .microseconds(200)) }
}

/// This process's CPU time (user and system, every thread; not its children's), in milliseconds.
func processCPU() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let total = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec
    return Double(total) * 1_000 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
}

for round in 0..<rounds {
    var logger = Logger(label: "lifecycle")
    logger.logLevel = .error
    let scheduler = try RunwayScheduler(
        settings: SchedulerSettings(terminationGrace: .seconds(5)),
        processOptions: ProcessOptions(suspensionMechanism: mechanism, adjustsOOMScore: true),
        logger: logger
    )
    let counter = PhaseCounter()
    scheduler.observeSuspensionConfirmations { _, suspended, _ in counter.record(suspended ? .suspended : .resumed) }
    scheduler.observeTransitions { event in if event.to == .notRunning { counter.record(.notRunning) } }
    let apps = (0..<count).map { AppID("bench.sleep.\($0)") }
    for app in apps {
        try scheduler.register(
            process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
        )
    }
    let clock = ContinuousClock()
    var phases: [(String, Double)] = []
    var cpu: [(String, Double)] = []
    var started = (wall: clock.now, cpu: processCPU())
    /// Starts timing a phase: its wall clock and this process's CPU.
    func begin() { started = (clock.now, processCPU()) }
    /// Ends the phase begun last: its wall time as `name`, its CPU as `name_cpu`.
    func end(_ name: String) {
        phases.append((name, milliseconds(clock.now - started.wall)))
        cpu.append((name + "_cpu", processCPU() - started.cpu))
    }

    // Spawning is synchronous: every child has a pid (its exec done) when the launch request returns.
    begin()
    precondition(scheduler.perform(.launch, onEach: apps).isEmpty)
    if polls { await waitUntil { scheduler.processes().values.filter { $0.pid != nil }.count == count } }
    end("spawn")
    precondition(scheduler.processes().values.filter { $0.pid != nil }.count == count, "a child did not start")

    begin()
    counter.expect(count, of: .suspended)
    precondition(scheduler.perform(UserAction.home.command, onEach: apps).isEmpty)
    if polls {
        await waitUntil { scheduler.processes().values.allSatisfy(\.suspensionConfirmed) }
    } else {
        await counter.wait()
    }
    end("suspend")
    precondition(scheduler.processes().values.allSatisfy(\.suspensionConfirmed), "a suspension is not confirmed")

    begin()
    counter.expect(count, of: .resumed)
    precondition(scheduler.perform(UserAction.summon.command, onEach: apps).isEmpty)
    if polls {
        await waitUntil { scheduler.processes().values.allSatisfy(\.suspensionConfirmed) }
    } else {
        await counter.wait()
    }
    end("resume")
    precondition(scheduler.processes().values.allSatisfy(\.suspensionConfirmed), "a resumption is not confirmed")

    begin()
    counter.expect(count, of: .notRunning)
    precondition(scheduler.perform(.terminate, onEach: apps).isEmpty)
    if polls {
        await waitUntil { scheduler.status().allSatisfy { $0.state == .notRunning } }
    } else {
        await counter.wait()
    }
    end("terminate")
    precondition(scheduler.status().allSatisfy { $0.state == .notRunning }, "an app is still running")

    await scheduler.shutdown()
    let total = phases.map(\.1).reduce(0, +)
    let fields = (phases + [("total", total)] + cpu).map { "\"\($0.0)\": \(String(format: "%.2f", $0.1))" }.joined(
        separator: ", "
    )
    let tool = "runway-\(mechanism.rawValue)\(polls ? "-poll" : "")"
    print("{\"tool\": \"\(tool)\", \"apps\": \(count), \"round\": \(round), \(fields)}")
}
