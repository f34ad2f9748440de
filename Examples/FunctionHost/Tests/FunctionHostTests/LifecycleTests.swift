import Foundation
@_spi(Processes) import Runway
@_spi(Processes) import RunwayCore
import Testing

@testable import FunctionHost

/// The host over real HTTP on loopback, with real function processes: what each request finds (`Runway-Start`)
/// and the answers across freeze, thaw, purge and restore.
@Suite(.serialized)
struct LifecycleTests {
    @Test
    func requestsAnswerColdWarmThawedAndRestoredWithTheCountKeptAcrossAPurge() async throws {
        try await HostHarness.with(idleSeconds: 0.3, functions: [(name: "py", budgetSeconds: 5, exitsOnSuspend: false)])
        { harness in
            // Not running, nothing preserved: a cold start.
            let cold = try await harness.get("/fn/py/")
            #expect(cold.status == .ok, "\(cold.text)")
            #expect(cold.start == "cold")
            let first = try cold.decode(CountReply.self)
            #expect(first.function == "py" && first.count == 1 && !first.restored)

            // Active: warm, the same process.
            let warm = try await harness.get("/fn/py/")
            #expect(warm.start == "warm")
            #expect(
                try warm.decode(CountReply.self)
                    == CountReply(function: "py", count: 2, pid: first.pid, restored: false)
            )

            // Idle: sent to the background (S2), suspended with no task (B5); the next request resumes it (S3).
            try await harness.waitUntil("py", is: .suspended)
            let thawed = try await harness.get("/fn/py/")
            #expect(thawed.start == "thawed")
            #expect(
                try thawed.decode(CountReply.self)
                    == CountReply(function: "py", count: 3, pid: first.pid, restored: false)
            )

            // Memory pressure purges it (P3, P8) with its state kept (R1); the next launch restores it (R2).
            try await harness.waitUntil("py", is: .suspended)
            let pressure = try await harness.post("/admin/pressure")
            #expect(pressure.text == #"{"purged":["py"]}"#)
            try await harness.waitUntil("py", is: .notRunning)
            #expect(try await harness.status(of: "py").lastRunEnding == "purged")
            let restored = try await harness.get("/fn/py/")
            #expect(restored.start == "restored")
            let after = try restored.decode(CountReply.self)
            #expect(after.count == 4 && after.restored && after.pid != first.pid)
            #expect(try await harness.status(of: "py").lastStart == "restored")
        }
    }

    @Test
    func queriesReachTheFunctionAndAnUnknownFunctionIsA404NamingIt() async throws {
        try await HostHarness.with(idleSeconds: 1, functions: [(name: "py", budgetSeconds: 5, exitsOnSuspend: false)]) {
            harness in
            let echo = try await harness.get("/fn/py/echo?x=hello")
            #expect(echo.status == .ok && echo.start == "cold" && echo.text == "hello")
            let response = try await harness.get("/fn/nope/")
            #expect(response.status == .notFound)
            #expect(response.text.contains(#""function":"nope""#))
            #expect(try await harness.status(of: "py").state == "active")
        }
    }

    @Test
    func E1_anExitsOnSuspendFunctionEndsWhenIdleAndStartsColdAgain() async throws {
        try await HostHarness.with(
            idleSeconds: 0.3,
            functions: [(name: "once", budgetSeconds: 5, exitsOnSuspend: true)]
        ) { harness in
            let first = try await harness.get("/fn/once/")
            #expect(first.start == "cold")
            try await harness.waitUntil("once", is: .notRunning)
            // Never in the background or suspended (E1): active -> inactive (willTerminate) -> notRunning.
            let states = harness.events(of: "once").map(\.to)
            #expect(!states.contains(.background) && !states.contains(.suspended))
            let second = try await harness.get("/fn/once/")
            #expect(second.start == "cold")
            #expect(try second.decode(CountReply.self).count == 1)
        }
    }
}
