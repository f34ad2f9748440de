import Foundation
import RunwayCore
import Testing

@testable import RunwayBench

/// A comparison with swift-nio holds the peer to its own plan, as Runway's side is held to its: a peer whose loop
/// really is blocked (`NIOWorkload`'s stall) gets no ratios and no "passed", and the report names the side and
/// why. Real workloads on real loops in this process; counts and verdicts only, never timings.
extension BenchTrustTests {
    /// 5 apps x 10 tasks entering the background at once, budget 1 s, lead 0.2 s: finishers end their tasks 200
    /// to 600 ms after entry, warnings are due at 800 ms and terminations at 1 s.
    static let peerPlan = BenchPlan(
        BenchConfiguration(
            apps: 5,
            tasksPerApp: 10,
            budget: .milliseconds(1_000),
            warningLead: .milliseconds(200),
            endFraction: 0.5,
            duration: .zero,
            seed: 7
        )
    )

    @Test func aPeerWhoseLoopIsBlockedPastItsDeadlinesFellBehindItsPlanAndGetsNoRatios() async throws {
        let plan = Self.peerPlan
        let runway = try await RunwayWorkload(plan: plan, progress: nil).run()
        // Blocked from 780 ms (after every cancel, before the warnings) for 400 ms: every warning and termination
        // is served more than 100 ms late.
        let stalled = try await NIOWorkload(
            plan: plan,
            progress: nil,
            stall: (offset: .milliseconds(780), duration: .milliseconds(400))
        ).run()
        let report = BenchReport(
            plan: plan,
            runs: [BenchRun(runway: runway, nio: stalled)],
            environment: BenchEnvironment.current(commit: "unknown")
        )
        #expect(!report.passed)
        #expect(report.ratios == nil && report.ratiosWithheld != nil)
        let late = report.failures.filter { $0.hasPrefix("swift-nio: ") && $0.contains("more than 100 ms late") }
        #expect(late.count == 2, "warnings and terminations: \(report.failures)")
        #expect(report.fellBehind == report.failures, "nothing lost or repeated, only late: \(report.failures)")
        #expect(report.exitStatus == 3)
        let bound = try #require(report.lateBound)
        #expect(bound.nanoseconds == 100_000_000)
        #expect(bound.beyond["nio.terminations"] == plan.expectedTerminations, "\(bound)")
        #expect(bound.beyond["runway.terminations"] == 0, "\(bound)")
        let table = report.table
        #expect(table.contains("late bound: 100 ms; "), "\(table)")
        #expect(table.contains("ratios WITHHELD: "), "\(table)")
        #expect(!table.contains("ratio swift-nio / Runway"), "\(table)")
        #expect(!table.contains("result: passed"), "\(table)")
        #expect(table.contains("\n  swift-nio: \(plan.expectedWarnings) of \(plan.expectedWarnings) expiration "))
    }

    @Test func aPeerWhoseCancelsReachItsLoopAfterTheWarningFellBehindItsPlan() async throws {
        let plan = Self.peerPlan
        let runway = try await RunwayWorkload(plan: plan, progress: nil).run()
        // Blocked from 150 ms to 1.05 s: the cancel request of every finisher that entered the background before
        // (200 to 600 ms after its entry) waits past its app's warning (800 ms after). A home the busy machine
        // delayed past 150 ms enters after the stall, and its cancel comes in time.
        let stalled = try await NIOWorkload(
            plan: plan,
            progress: nil,
            stall: (offset: .milliseconds(150), duration: .milliseconds(900))
        ).run()
        let behind = stalled.requestsAfterWarning
        #expect(behind > 0 && behind <= plan.finisherCount)
        let report = BenchReport(
            plan: plan,
            runs: [BenchRun(runway: runway, nio: stalled)],
            environment: BenchEnvironment.current(commit: "unknown")
        )
        #expect(!report.passed && report.ratios == nil)
        #expect(
            report.fellBehind.contains(
                "swift-nio: \(behind) finishers' cancel requests reached its loop after their warning: "
                    + "swift-nio fell behind its own plan (its loop was busy), so its lateness is a backlog"
            ),
            "\(report.failures)"
        )
        #expect(report.exitStatus != 0)
        #expect(report.exitLines.contains { $0.hasPrefix("bench failed: swift-nio: ") })
    }
}
