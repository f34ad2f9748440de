@_spi(Processes) import RunwayCore
import Testing

@testable import RunwayBench
@testable import RunwayCLI

#if canImport(Glibc)
import Glibc
#endif

/// The analysis of `runway bench --processes` on made-up observations: a lost, repeated or wrongly ended event
/// fails the run, and the report then never says "passed". No process runs here.
@Suite struct BenchProcessesTrustTests {
    /// 6 apps x 3 tasks, seed 2: overrunners 0 (suspended), 1 (exits) and 3 (killed); finishers 2, 4 and 5.
    static let plan = ProcessBenchPlan(
        BenchPlan(
            BenchConfiguration(
                apps: 6,
                tasksPerApp: 3,
                budget: .seconds(1),
                warningLead: .milliseconds(400),
                endFraction: 0.4,
                duration: .milliseconds(100),
                seed: 2
            )
        ),
        suspension: .signal
    )

    /// Every planned event, each 1 ms late, with app `index` entering the background at `index` ms.
    static func completeObservations() -> ProcessBenchObservations {
        let plan = Self.plan
        var observations = ProcessBenchObservations(apps: plan.apps)
        for (index, role) in plan.roles.enumerated() {
            let entry = Instant(nanosecondsSinceOrigin: UInt64(index) * 1_000_000)
            observations.entered[index] = entry
            let late = TimeSpan.milliseconds(1)
            if role != .finisher {
                for task in 0..<plan.configuration.tasksPerApp {
                    observations.warning(
                        task: BackgroundTaskID(rawValue: UInt64(100 * index + task + 1)),
                        app: index,
                        at: plan.plan.warning(after: entry) + late
                    )
                }
            }
            let deadline = plan.plan.deadline(after: entry)
            switch role {
            case .finisher:
                let end = entry + .milliseconds(200)
                observations.suspended[index] = (end, .noOutstandingTasks)
                observations.confirmation(app: index, at: end + late)
            case .suspended:
                observations.suspended[index] = (deadline, .budgetExpired)
                observations.confirmation(app: index, at: deadline + late)
            case .exits:
                observations.reaped[index] = (deadline + late, .signaled(SIGTERM))
            case .killed:
                observations.reaped[index] = (deadline + late, .signaled(SIGKILL))
            }
        }
        return observations
    }

    static func report(_ observations: ProcessBenchObservations) -> ProcessBenchReport {
        let run = ProcessRunResult(
            events: observations.analyse(Self.plan),
            mechanism: "signal",
            setupSeconds: 0.1,
            tasksBegun: 18,
            homeErrors: 0,
            deadlineSeconds: 2,
            finished: true
        )
        let environment = BenchEnvironment(
            version: "test",
            commit: "unknown",
            buildType: "release",
            date: "2026-11-23T00:00:00Z",
            host: BenchEnvironment.Host(cores: 2, kernel: "Linux test", cgroupMode: "v2")
        )
        return ProcessBenchReport(plan: Self.plan, runs: [run], environment: environment)
    }

    @Test func everyPlannedEventOnceAndLatePasses() {
        #expect(Self.plan.roles == [.suspended, .exits, .finisher, .killed, .finisher, .finisher])
        let report = Self.report(Self.completeObservations())
        #expect(report.passed, "\(report.failures)")
        #expect(report.exitStatus == 0)
        for (key, _, events) in report.processes.kinds {
            #expect(events.count == events.expected && events.lost == 0 && events.unexpected == 0, "\(key)")
            #expect(events.latenessNanoseconds?.p50 == 1_000_000, "\(key)")
        }
        #expect(report.table.hasSuffix("result: passed (every planned event seen exactly once, none early)"))
    }

    @Test func aRepeatedWarningFailsTheRun() {
        var observations = Self.completeObservations()
        observations.warning(
            task: BackgroundTaskID(rawValue: 1),
            app: 0,
            at: Instant(nanosecondsSinceOrigin: 900_000_000)
        )
        let report = Self.report(observations)
        #expect(report.processes.expirationWarnings.unexpected == 1)
        #expect(report.failures == ["1 expiration warnings repeated or not in the plan"])
        #expect(!report.passed && report.exitStatus == 1)
        #expect(!report.table.contains("result: passed"))
        #expect(report.table.contains("result: FAILED"))
    }

    @Test func aLostKillFailsTheRun() {
        var observations = Self.completeObservations()
        observations.reaped[3] = nil
        let report = Self.report(observations)
        #expect(report.processes.kills.lost == 1)
        #expect(report.failures == ["1 SIGKILL, reaped lost (expected, never observed)"])
        #expect(!report.passed && report.exitStatus == 1)
        #expect(!report.table.contains("result: passed"))
    }

    @Test func aKillEndedByTheWrongSignalIsNotCountedAsPlanned() {
        var observations = Self.completeObservations()
        observations.reaped[3] = (Instant(nanosecondsSinceOrigin: 2_000_000_000), .signaled(SIGTERM))
        let report = Self.report(observations)
        #expect(report.processes.kills.lost == 1)
        #expect(report.processes.kills.unexpected == 1)
        #expect(!report.passed)
    }

    @Test func aFinisherSuspendedByItsBudgetIsNotASuspensionAfterEnd() {
        var observations = Self.completeObservations()
        let entry = observations.entered[2] ?? .origin
        observations.suspended[2] = (Self.plan.plan.deadline(after: entry), .budgetExpired)
        let report = Self.report(observations)
        #expect(report.processes.suspensionsAfterEnd.lost == 1)
        #expect(report.processes.suspensionsAfterEnd.unexpected == 1)
        #expect(!report.passed)
    }
}
