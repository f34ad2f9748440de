import Foundation
@_spi(Processes) import Runway
@_spi(Processes) import RunwayCore
import Testing

@testable import FunctionHost

/// The `waitUntil` pattern under a budget, and what a frozen function costs: measured on real processes and the
/// real cgroup.
@Suite(.serialized)
struct BudgetAndFreezeTests {
    /// Work begun in a background task before the response runs on after it (`waitUntil`); the budget's expiration
    /// warning (B4, at background entry when the budget is shorter than the 5 s lead) makes the function stop it
    /// and end its task, and with no task left it is suspended at once (B5), not killed.
    @Test
    func B5_waitUntilWorkEndedAtItsExpirationWarningLeavesTheFunctionSuspended() async throws {
        try await HostHarness.with(
            idleSeconds: 0.3,
            functions: [(name: "py", budgetSeconds: 4, exitsOnSuspend: false)]
        ) { harness in
            let accepted = try await harness.post("/fn/py/work?ms=60000")
            #expect(accepted.status == .ok && accepted.start == "cold")
            #expect(accepted.text.replacingOccurrences(of: " ", with: "") == #"{"accepted":60000}"#)
            try await harness.waitUntil("py", is: .suspended)
            #expect(harness.output(of: "py").contains("will expire"))
            let events = harness.events(of: "py").suffix(2).map { "\($0.from)->\($0.to) \($0.cause)" }
            #expect(
                events == ["active->background command(enterBackground)", "background->suspended noOutstandingTasks"]
            )
            #expect(try await harness.get("/fn/py/").start == "thawed")
        }
    }

    /// Work that goes on past its warning (`ignoreExpiration=1`) is killed at the budget's deadline (B6,
    /// `budgetOverrun`): SIGKILL, no message. The state preserved when it entered the background comes back at the
    /// next launch (R2).
    @Test
    func B6_waitUntilWorkPastTheBudgetGetsTheExpirationWarningThenIsKilled() async throws {
        try await HostHarness.with(
            idleSeconds: 0.3,
            functions: [(name: "py", budgetSeconds: 2, exitsOnSuspend: false)]
        ) { harness in
            _ = try await harness.get("/fn/py/")
            let accepted = try await harness.post("/fn/py/work?ms=60000&ignoreExpiration=1")
            #expect(accepted.status == .ok && accepted.start == "warm")

            // Idle: sent to the background with the task outstanding, its budget running (B3), then killed.
            try await harness.waitUntil("py", is: .notRunning)
            #expect(harness.output(of: "py").contains("will expire"))
            let events = harness.events(of: "py").suffix(2).map { "\($0.from)->\($0.to) \($0.cause)" }
            #expect(
                events == [
                    "active->background command(enterBackground)", "background->notRunning terminated(budgetOverrun)",
                ]
            )
            let restored = try await harness.get("/fn/py/")
            #expect(restored.start == "restored")
            let reply = try restored.decode(CountReply.self)
            // GET and POST counted before the kill were preserved on entering the background.
            #expect(reply.restored && reply.count == 3)
        }
    }

    /// A suspended function is frozen (P1): `frozen 1` in its cgroup's `cgroup.events`, and its cgroup's CPU time
    /// (`usage_usec` in `cpu.stat`) does not move over a second.
    @Test
    func P1_aFrozenFunctionUsesNoCPU() async throws {
        try await HostHarness.with(
            idleSeconds: 0.3,
            functions: [(name: "py", budgetSeconds: 5, exitsOnSuspend: false)]
        ) { harness in
            _ = try await harness.get("/fn/py/")
            try await harness.waitUntil("py", is: .suspended)
            let app = HostRuntime.appID(of: "py")
            let process = try #require(harness.host.scheduler.processes()[app])
            try #require(process.mechanism == .freezer, "the cgroup v2 freezer is not usable here")
            let cgroup = try #require(process.cgroupPath)
            try await Self.waitUntilFrozen(cgroup)
            let before = try Self.usageMicroseconds(cgroup)
            try await Task.sleep(for: .seconds(1))
            let after = try Self.usageMicroseconds(cgroup)
            #expect(try Self.isFrozen(cgroup))
            #expect(after == before, "a frozen function used \(after - before) µs of CPU in a second")
        }
    }

    static func usageMicroseconds(_ cgroup: String) throws -> Int {
        let text = try String(contentsOfFile: cgroup + "/cpu.stat", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("usage_usec ") })
        return try #require(Int(line.dropFirst("usage_usec ".count)))
    }

    static func isFrozen(_ cgroup: String) throws -> Bool {
        try String(contentsOfFile: cgroup + "/cgroup.events", encoding: .utf8).contains("frozen 1")
    }

    /// The suspension is counted from the freeze's start; the kernel shows `frozen 1` once every task stopped.
    static func waitUntilFrozen(_ cgroup: String) async throws {
        for _ in 0..<500 where !(try Self.isFrozen(cgroup)) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try Self.isFrozen(cgroup))
    }
}
