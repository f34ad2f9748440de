import Foundation
@_spi(Processes) import Runway
@_spi(Processes) import RunwayCore
import Testing

@testable import FunctionHost

/// The Swift sample function (Sources/SwiftFunction: RunwayClient and Hummingbird) behind the host, over real HTTP
/// on loopback: the same answers as the Python sample across launch, freeze, thaw, purge and restore, and its
/// expiration handler ending the `waitUntil` work.
@Suite(.serialized)
struct SwiftFunctionTests {
    @Test
    func R2_theSwiftFunctionAnswersColdWarmThawedAndRestoredWithItsCountKeptAcrossAPurge() async throws {
        try await SwiftFunctionHost.with(budgetSeconds: 5) { host in
            let cold = try await host.get("/fn/swift/")
            #expect(cold.status == .ok && cold.start == "cold", "\(cold.text)")
            let first = try cold.decode(CountReply.self)
            #expect(first.function == "swift" && first.count == 1 && !first.restored)

            let echo = try await host.get("/fn/swift/echo?x=hello")
            #expect(echo.start == "warm" && echo.text == "hello")

            // Idle: sent to the background, where it preserves {"count":2}, and suspended with no task (B5).
            try await host.waitUntil(is: .suspended)
            let thawed = try await host.get("/fn/swift/")
            #expect(thawed.start == "thawed")
            #expect(
                try thawed.decode(CountReply.self)
                    == CountReply(function: "swift", count: 3, pid: first.pid, restored: false)
            )

            // Purged with its state kept (P3, R1); the next launch hands the count back (R2).
            try await host.waitUntil(is: .suspended)
            #expect(try await host.post("/admin/pressure").text == #"{"purged":["swift"]}"#)
            try await host.waitUntil(is: .notRunning)
            let restored = try await host.get("/fn/swift/")
            #expect(restored.start == "restored")
            let after = try restored.decode(CountReply.self)
            #expect(after.count == 4 && after.restored && after.pid != first.pid)
        }
    }

    /// The budget (4 s) is shorter than the 5 s warning lead, so the warning comes at background entry (B4): the
    /// Swift function's handler stops the work and ends its task, and it is suspended (B5), not killed (B6).
    @Test
    func B5_theSwiftFunctionEndsItsWaitUntilTaskAtTheExpirationWarningAndIsSuspended() async throws {
        try await SwiftFunctionHost.with(budgetSeconds: 4) { host in
            let accepted = try await host.post("/fn/swift/work?ms=60000")
            #expect(accepted.status == .ok && accepted.start == "cold")
            #expect(accepted.text == #"{"accepted":60000}"#)
            try await host.waitUntil(is: .suspended)
            #expect(host.output.contains("will expire: work stopped"))
            #expect(
                Array(host.transitions.suffix(2)) == [
                    "active->background command(enterBackground)", "background->suspended noOutstandingTasks",
                ]
            )
            let thawed = try await host.get("/fn/swift/")
            #expect(thawed.start == "thawed")
            #expect(try thawed.decode(CountReply.self).count == 2)
        }
    }
}

/// A host on loopback whose one function, `swift`, is the SwiftFunction binary built beside this test bundle: a
/// `HostHarness` running that program, with what these tests read of the function.
final class SwiftFunctionHost: Sendable {
    let harness: HostHarness
    var host: HostRuntime { self.harness.host }
    var directory: String { self.harness.directory }

    /// The SwiftFunction executable: `swift build --build-tests` puts it in the directory of the test bundle.
    static var program: String {
        let bundle = URL(fileURLWithPath: Bundle.main.bundlePath)
        let directory = bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
        return directory.appendingPathComponent("SwiftFunction").path
    }

    private init(budgetSeconds: Double) async throws {
        self.harness = try await HostHarness(
            idleSeconds: 0.3,
            functions: [(name: "swift", budgetSeconds: budgetSeconds, exitsOnSuspend: false)],
            program: [Self.program]
        )
    }

    func get(_ target: String) async throws -> HTTPClient.Response { try await self.harness.get(target) }

    func post(_ target: String) async throws -> HTTPClient.Response { try await self.harness.post(target) }

    /// Waits (polling the scheduler every 20 ms, up to 30 s) until the function is in `state`, not terminating.
    func waitUntil(is state: AppState) async throws {
        let app = HostRuntime.appID(of: "swift")
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while clock.now < deadline {
            let status = self.host.scheduler.status(taskLimit: 0).first { $0.app == app }
            if status?.state == state && status?.terminating == nil { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        let last = self.host.scheduler.status(taskLimit: 4).first { $0.app == app }
        let found = "\(self.transitions); \(String(describing: last)); \(self.output)"
        Issue.record("swift did not reach \(state) within 30 s: \(found)")
        throw HTTPClient.Failure(description: "swift did not reach \(state)")
    }

    /// The function's transitions, oldest first, as "from->to cause".
    var transitions: [String] {
        self.host.waiters.events(of: HostRuntime.appID(of: "swift")).map { "\($0.from)->\($0.to) \($0.cause)" }
    }

    /// What the function printed on standard output so far.
    var output: String { (try? String(contentsOfFile: "\(self.directory)/swift.out", encoding: .utf8)) ?? "" }

    /// Runs `body` against a new host serving the Swift function with `budgetSeconds`, and stops it afterwards.
    static func with(budgetSeconds: Double, _ body: (SwiftFunctionHost) async throws -> Void) async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.program),
            "no SwiftFunction at \(Self.program): build the package with swift build --build-tests"
        )
        let host = try await SwiftFunctionHost(budgetSeconds: budgetSeconds)
        do {
            try await body(host)
        } catch {
            await host.stop()
            throw error
        }
        await host.stop()
    }

    private func stop() async { await self.harness.stop() }
}
