// swift-tools-version: 6.1
// Benchmarks for RunwayCore against swift-nio doing the same work. A separate package: the root package does
// not depend on it, so `swift build` at the root never compiles package-benchmark or swift-nio.
//
// Run: `cd Benchmarks && swift package --disable-sandbox benchmark` (see README.md).
import Foundation
import PackageDescription

// The root package's identity is the name of the folder that holds it (SwiftPM's identity for a path
// dependency), lowercased: "main" in /work/main, "runway" in a clone named Runway. Computed from this
// manifest's path so that the package resolves whatever the clone is called.
let rootIdentity = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .lastPathComponent
    .lowercased()

let package = Package(
    name: "RunwayBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "DeadlineBenchmarks",
            dependencies: [
                .product(name: "RunwayCore", package: rootIdentity),
                .product(name: "RunwayTestKit", package: rootIdentity),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/DeadlineBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // Expiration lateness on the real loop, RunwayScheduler against NIO's scheduleTask(deadline:). A plain
        // executable, not a package-benchmark target: `swift run -c release LatenessComparison`. It lives
        // under Sources/, not Benchmarks/: package-benchmark runs every executable target whose folder sits in
        // a folder named "Benchmarks" as a benchmark (and fails on this one).
        .executableTarget(
            name: "LatenessComparison",
            dependencies: [
                .product(name: "Runway", package: rootIdentity),
                .product(name: "RunwayCore", package: rootIdentity),
                .product(name: "RunwayTestKit", package: rootIdentity),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/LatenessComparison"
        ),
        // The core's begin+end pair and expiry at 100,000 outstanding tasks, for callgrind instruction counts
        // (Scripts/instructions.py, `make instructions`) and interleaved before/after timing. Under Sources/ for the
        // same reason as LatenessComparison.
        .executableTarget(
            name: "CoreInstructions",
            dependencies: [
                .product(name: "RunwayCore", package: rootIdentity)
            ],
            path: "Sources/CoreInstructions",
            // RunwayCore's `Double.rounded(.up)` calls libm's `ceil`; the other targets get libm through Foundation.
            linkerSettings: [.linkedLibrary("m")]
        ),
        // The whole lifecycle of N `sleep` children (spawn, suspend + confirm, resume + confirm, terminate +
        // reap) on RunwayScheduler; Supervisord/compare.py runs it beside supervisord doing the same.
        .executableTarget(
            name: "ProcessLifecycle",
            dependencies: [
                .product(name: "Runway", package: rootIdentity),
                .product(name: "RunwayCore", package: rootIdentity),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/ProcessLifecycle"
        ),
    ],
    swiftLanguageModes: [.v6]
)
