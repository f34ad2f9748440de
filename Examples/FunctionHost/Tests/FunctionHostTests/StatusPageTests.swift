import Foundation
@_spi(Processes) import RunwayCore
import Testing

@testable import FunctionHost

/// The status page in a real browser (Scripts/status_page_check.py, headless Chromium): each function's row shows
/// the state `/status.json` reports. Skipped where Chromium is not installed (.ci/run installs it).
@Suite(.serialized)
struct StatusPageTests {
    static var scriptPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/status_page_check.py").path
    }

    static var chromiumInstalled: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/chromium")
        }
    }

    /// Three functions held in three states for the check: suspended (served, then idle), background (holding
    /// `waitUntil` work within a long budget) and notRunning (never asked).
    @Test(.enabled(if: Self.chromiumInstalled, "chromium is not installed (.ci/run installs it)"))
    func theStatusPageShowsTheStatesTheJSONReports() async throws {
        try await HostHarness.with(
            idleSeconds: 0.3,
            functions: [
                (name: "frozen", budgetSeconds: 5, exitsOnSuspend: false),
                (name: "working", budgetSeconds: 120, exitsOnSuspend: false),
                (name: "idle", budgetSeconds: 5, exitsOnSuspend: false),
            ]
        ) { harness in
            _ = try await harness.get("/fn/frozen/")
            _ = try await harness.post("/fn/working/work?ms=60000")
            try await harness.waitUntil("frozen", is: .suspended)
            try await harness.waitUntil("working", is: .background)
            let screenshot = Self.artefactDirectory() + "/status-page.png"
            let (status, output) = try await Self.run(
                [
                    "/usr/bin/python3", Self.scriptPath, "--url", "http://127.0.0.1:\(harness.port)",
                    "--screenshot", screenshot,
                ]
            )
            print(output)
            print("status page screenshot: \(screenshot)")
            #expect(status == 0, "\(output)")
            #expect(output.contains("'frozen': 'suspended'") && output.contains("'working': 'background'"))
            #expect(FileManager.default.fileExists(atPath: screenshot))
        }
    }

    /// `.build/test-artefacts` of this package, kept after the run.
    static func artefactDirectory() -> String {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let directory = package.appendingPathComponent(".build/test-artefacts").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Runs a program to its end on a thread of its own (the cooperative pool keeps serving the host meanwhile).
    static func run(_ arguments: [String]) async throws -> (Int32, String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try Self.runBlocking(arguments) })
            }
        }
    }

    static func runBlocking(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
