import Foundation
@_spi(Processes) import Runway
@_spi(Processes) import RunwayCore
import Testing

@testable import FunctionHost

/// The `waitUntil` pattern under a budget, and what a frozen function costs: measured on real processes and the
/// real cgroup.
@Suite(.serialized)
struct BudgetAndFreezeTests {
    /// Work begun in a background task before the response runs on after it; past the budget the expiration handler
    /// runs (B4) and then the function either ends its task (suspended, B5) or is killed at the deadline (B6,
    /// `budgetOverrun`). The test function keeps working, so it is killed; its state is kept (R2).
    @Test
    func B6_waitUntilWorkPastTheBudgetGetsTheExpirationHandlerThenIsEnded() async throws {
        try await HostHarness.with(
            idleSeconds: 0.3,
            functions: [(name: "py", budgetSeconds: 1, exitsOnSuspend: false)]
        ) { harness in
            _ = try await harness.get("/fn/py/")
            let accepted = try await harness.post("/fn/py/work?ms=60000")
            #expect(accepted.status == .ok && accepted.start == "warm")
            #expect(accepted.text == #"{"accepted": 60000}"# || accepted.text == #"{"accepted":60000}"#)

            // Idle: sent to the background with the task outstanding, its budget running (B3).
            try await harness.waitUntil("py", is: .background)
            let background = try await harness.status(of: "py")
            #expect(background.tasks == 1)
            #expect(background.budgetRemainingMs.map { $0 <= 1_000 } == true)

            try await harness.waitUntil("py", is: .notRunning)
            #expect(harness.output(of: "py").contains("backgroundTaskWillExpire"))
            let ending = try #require(harness.events(of: "py").last)
            #expect(ending.from == .background)
            if case .terminated(let reason) = ending.cause {
                #expect("\(reason)" == "budgetOverrun")
            } else {
                Issue.record("ended by \(ending.cause), not a termination for its budget")
            }
            let restored = try await harness.get("/fn/py/")
            #expect(restored.start == "restored")
            #expect(try restored.decode(CountReply.self).count == 2)
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
