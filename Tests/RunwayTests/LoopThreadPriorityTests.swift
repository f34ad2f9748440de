import CLibUV
import CRunwayProcess
import Dispatch
import Foundation
@_spi(Processes) @_spi(Driver) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// `LoopThreadPriority`: the loop thread asks for SCHED_FIFO before it runs anything, threads it creates start
/// at the normal policy (SCHED_RESET_ON_FORK), and bad priorities are refused before any thread starts. The
/// refusal for lack of privilege is checked end to end in `RunwayCLITests` (`runway bench` without CAP_SYS_NICE).
@Suite("LoopThreadPriority", .serialized)
struct LoopThreadPriorityTests {
    /// SCHED_OTHER and SCHED_FIFO as `sched_getscheduler` reports them.
    static let schedOther: Int32 = 0
    static let schedFIFO: Int32 = 1

    /// True when this process may ask for SCHED_FIFO `priority`: CAP_SYS_NICE (bit 23 of CapEff) or
    /// RLIMIT_RTPRIO of at least `priority`. CI runs as root, where this holds.
    static func mayUseRealtime(priority: Int32) -> Bool {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let capabilities =
            status.split(separator: "\n").first { $0.hasPrefix("CapEff:") }
            .flatMap { UInt64($0.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
        if capabilities & (1 << 23) != 0 { return true }
        return runway_realtime_priority_limit() >= priority
    }

    /// What the loop thread, and a thread it creates, run at.
    struct Observed: Sendable, CustomStringConvertible {
        var outcome: LoopThreadPriorityOutcome
        var policy: Int32
        var priority: Int32
        var policyOfThreadItCreated: Int32

        var description: String {
            "outcome \(outcome), policy \(policy), priority \(priority), new thread's policy \(policyOfThreadItCreated)"
        }
    }

    /// Reads `Observed` on `loop`'s thread.
    static func observe(_ loop: EventLoopThread) async -> Observed? {
        let observed = Recorder<Observed>()
        let latch = Latch(count: 1)
        let accepted = loop.execute {
            let created = Recorder<Int32>()
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                created.append(runway_thread_policy(0))
                done.signal()
            }
            thread.start()
            done.wait()
            observed.append(
                Observed(
                    outcome: loop.priorityOutcome,
                    policy: runway_thread_policy(0),
                    priority: runway_thread_priority(0),
                    policyOfThreadItCreated: created.values.first ?? -1
                )
            )
            latch.countDown()
        }
        guard accepted, await latch.wait() else { return nil }
        return observed.values.first
    }

    @Test func realtimePutsTheLoopThreadInFIFOAndNotTheThreadsItCreates() async throws {
        let loop = try EventLoopThread(name: "test-fifo", priority: .realtime(priority: 7))
        let observed = try #require(await Self.observe(loop))
        loop.shutdown()

        if Self.mayUseRealtime(priority: 7) {
            #expect(observed.outcome == .realtime(priority: 7), "\(observed)")
            #expect(observed.policy == Self.schedFIFO, "\(observed)")
            #expect(observed.priority == 7, "\(observed)")
        } else {
            print("no CAP_SYS_NICE or RLIMIT_RTPRIO here: checking the refusal instead")
            #expect(observed.outcome == .refused(priority: 7, errno: EPERM), "\(observed)")
            #expect(observed.policy == Self.schedOther, "\(observed)")
        }
        // SCHED_RESET_ON_FORK: whatever the loop thread starts (a thread here, a child process in
        // ProcessTerminationTests) runs at the normal policy.
        #expect(observed.policyOfThreadItCreated == Self.schedOther, "\(observed)")
    }

    @Test func inheritedLeavesTheCreatorsPolicy() async throws {
        let loop = try EventLoopThread(name: "test-inherited")
        let observed = try #require(await Self.observe(loop))
        loop.shutdown()
        #expect(observed.outcome == .inherited)
        #expect(observed.policy == runway_thread_policy(0), "\(observed)")
        #expect(observed.priority == runway_thread_priority(0), "\(observed)")
    }

    @Test(arguments: [Int32(0), 100, -1])
    func aPriorityOutsideOneToNinetyNineIsRefusedBeforeAThreadStarts(priority: Int32) throws {
        let error = #expect(throws: EventLoopError.self) {
            _ = try EventLoopThread(name: "test-bad-priority", priority: .realtime(priority: priority))
        }
        #expect(error?.code == .invalidPriority)
        #expect(
            error?.description.contains("real-time priority \(priority) is outside 1...99") == true,
            "\(String(describing: error))"
        )
    }

    @Test func theSchedulerReportsWhatItsLoopGot() async throws {
        let scheduler = try RunwayScheduler(loopPriority: .realtime(priority: 3))
        let expected: LoopThreadPriorityOutcome =
            Self.mayUseRealtime(priority: 3) ? .realtime(priority: 3) : .refused(priority: 3, errno: EPERM)
        #expect(scheduler.loopPriorityOutcome == expected)
        await scheduler.shutdown()

        let plain = try RunwayScheduler()
        #expect(plain.loopPriorityOutcome == .inherited)
        await plain.shutdown()
    }

    @Test func outcomesSayWhatHappenedAndWhatWouldHelp() {
        #expect("\(LoopThreadPriorityOutcome.realtime(priority: 10))" == "SCHED_FIFO 10")
        #expect("\(LoopThreadPriorityOutcome.inherited)" == "inherited policy")
        #expect(
            "\(LoopThreadPriorityOutcome.refused(priority: 10, errno: EPERM))"
                == "SCHED_FIFO 10 refused: Operation not permitted (needs CAP_SYS_NICE or `ulimit -r` of at least 10); "
                + "running at the inherited policy"
        )
    }
}
