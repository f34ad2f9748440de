import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

/// Not a test: measures what an app's resource limits add to its launch. Run with
/// `RUNWAY_MEASURE=1 swift test --filter ResourceLimitMeasurement`.
///
/// Each run: a scheduler in one suspension mode; 100 apps running `/bin/sleep 1000`, launched one after another;
/// the time of each `perform(.launch)` call, which returns once the loop has spawned the program (past its exec).
/// Runs: no limits; four setrlimit values; the same with `MemoryMax` and `TasksMax` (on this host's cgroup v1
/// leaves, or cgroup v2 where it has the controllers).
@Suite("Resource limit measurement", .serialized)
struct ResourceLimitMeasurement {
    static let apps = 100

    @Test(.enabled(if: ProcessInfo.processInfo.environment["RUNWAY_MEASURE"] != nil))
    func launchCostOfLimits() async throws {
        let rlimits = ProcessLimits(
            resources: [
                .numberOfFiles: .init(soft: 1_024, hard: 4_096), .core: .init(soft: 0),
                .stack: .init(soft: 8 << 20), .numberOfProcesses: .init(soft: 4_096),
            ]
        )
        var ceilings = rlimits
        ceilings.memoryMaxBytes = 256 << 20
        ceilings.tasksMax = 64
        let mechanisms: [SuspensionMechanism] =
            ProcessTestSupport.freezerAvailable ? [.signal, .freezer] : [.signal]
        for mechanism in mechanisms {
            for (name, limits) in [("none", ProcessLimits()), ("setrlimit x4", rlimits), ("+ ceilings", ceilings)] {
                var durations = try await Self.measure(limits, mechanism: mechanism).sorted()
                durations = durations.isEmpty ? [0] : durations
                func milliseconds(_ quantile: Double) -> String {
                    let index = min(durations.count - 1, Int((Double(durations.count) * quantile).rounded(.down)))
                    return String(format: "%.3f", Double(durations[index]) / 1e6)
                }
                print(
                    "\(mechanism.rawValue), limits \(name): launch p50=\(milliseconds(0.5)) ms "
                        + "p99=\(milliseconds(0.99)) ms max=\(milliseconds(1)) ms over \(durations.count) launches"
                )
            }
        }
    }

    /// The duration of each launch, in nanoseconds.
    static func measure(_ limits: ProcessLimits, mechanism: SuspensionMechanism) async throws -> [Int64] {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        var durations: [Int64] = []
        for index in 0..<Self.apps {
            let app = AppID("com.test.limits.measure\(index)")
            var spec = ProcessSpec(arguments: ["/bin/sleep", "1000"])
            spec.limits = limits
            try scheduler.register(process: AppDescriptor(id: app, kind: .process(spec)))
            let start = ContinuousClock.now
            try scheduler.perform(.launch, on: app)
            let elapsed = ContinuousClock.now - start
            #expect(scheduler.processes()[app]?.pid != nil, "\(app) did not start")
            durations.append(
                elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
            )
        }
        await scheduler.shutdown()
        return durations
    }
}
