import Foundation
import Logging
import NIOCore
import NIOHTTP1
@_spi(Processes) import Runway
@_spi(Processes) import RunwayCore
import Testing

@testable import FunctionHost

/// A function host on loopback (port 0) with real function processes, driven over real HTTP.
final class HostHarness: Sendable {
    let host: HostRuntime
    let port: Int
    let directory: String
    private let server: Task<Void, any Error>
    let client = HTTPClient()

    /// The example's Python function (Functions/python_function.py).
    static var functionProgram: [String] {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let sample = tests.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Functions/python_function.py").path
        return ["/usr/bin/python3", sample]
    }

    /// Writes `functions.json` with `functions` (name, budget seconds, exits on suspend), each running `program`,
    /// into a new directory and starts a host on it.
    init(
        idleSeconds: Double,
        functions: [(name: String, budgetSeconds: Double, exitsOnSuspend: Bool)],
        program: [String] = HostHarness.functionProgram
    ) async throws {
        let directory = try HostRuntime.makePrivateDirectory()
        let entries = functions.map { function in
            [
                "name": function.name, "program": program, "budgetSeconds": function.budgetSeconds,
                "exitsOnSuspend": function.exitsOnSuspend,
            ] as [String: Any]
        }
        let json = try JSONSerialization.data(withJSONObject: ["idleSeconds": idleSeconds, "functions": entries])
        let path = directory + "/functions.json"
        try json.write(to: URL(fileURLWithPath: path))
        let config = try FunctionsConfig.load(path: path)
        var logger = Logger(label: "function-host-test")
        logger.logLevel = .notice
        let host = try HostRuntime(
            config: config,
            directory: directory,
            runtimeDirectory: directory,
            logger: logger
        )
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let application = HostServer.application(host: host, hostname: "127.0.0.1", port: 0, logger: logger) {
            continuation.yield($0)
        }
        self.server = Task { try await application.runService(gracefulShutdownSignals: []) }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw HTTPClient.Failure(description: "the host never ran") }
        self.host = host
        self.port = port
        self.directory = directory
    }

    /// Stops the server, terminates the functions and removes the directory.
    func stop() async {
        self.server.cancel()
        _ = await self.server.result
        await self.host.shutdown()
    }

    func get(_ target: String) async throws -> HTTPClient.Response {
        try await self.client.send(.GET, target, to: .tcp(host: "127.0.0.1", port: self.port))
    }

    func post(_ target: String) async throws -> HTTPClient.Response {
        try await self.client.send(.POST, target, to: .tcp(host: "127.0.0.1", port: self.port))
    }

    /// `GET /status.json`, decoded.
    func status() async throws -> StatusSnapshot {
        let response = try await self.get("/status.json")
        return try JSONDecoder().decode(StatusSnapshot.self, from: Data(response.body.readableBytesView))
    }

    /// The function's entry in `/status.json`.
    func status(of name: String) async throws -> StatusSnapshot.Function {
        try #require(try await self.status().functions.first { $0.name == name })
    }

    /// Waits (polling `/status.json` every 20 ms, up to `timeout`) until the function is in `state`, not
    /// terminating.
    func waitUntil(_ name: String, is state: AppState, timeout: Duration = .seconds(30)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            let function = try await self.status(of: name)
            if function.state == state.rawValue && !function.terminating { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        let last = try await self.status(of: name)
        Issue.record("\(name) did not reach \(state) within \(timeout); it is \(last.state)")
        throw HTTPClient.Failure(description: "\(name) is \(last.state), not \(state)")
    }

    /// The transitions the scheduler published for the function, oldest first.
    func events(of name: String) -> [TransitionEvent] {
        self.host.waiters.events(of: HostRuntime.appID(of: name))
    }

    /// What the function printed on standard output so far.
    func output(of name: String) -> String {
        (try? String(contentsOfFile: "\(self.directory)/\(name).out", encoding: .utf8)) ?? ""
    }
}

/// A function's `GET /` answer.
struct CountReply: Decodable, Equatable {
    var function: String
    var count: Int
    var pid: Int32
    var restored: Bool
}

extension HTTPClient.Response {
    var start: String? { self.headers.first(name: "Runway-Start") }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(self.body.readableBytesView))
    }
}

extension HostHarness {
    /// Runs `body` against a new host and stops it afterwards, whether `body` throws or not.
    static func with(
        idleSeconds: Double,
        functions: [(name: String, budgetSeconds: Double, exitsOnSuspend: Bool)],
        _ body: (HostHarness) async throws -> Void
    ) async throws {
        let harness = try await HostHarness(idleSeconds: idleSeconds, functions: functions)
        do {
            try await body(harness)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }
}
