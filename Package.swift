// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Runway",
    platforms: [.macOS(.v15)],
    // Library products are what an embedder or app author imports: the scheduler (Runway) with its core value
    // types, the test kit for driving it on a manual clock, and the client for Swift process apps. RunwayConfig,
    // RunwayProtocol and RunwayControl serve only the `runway` CLI, the daemon and this package's tests: they
    // are targets with `package` access, not products. RunwayLoop and RunwayProcesses are `package` too, below
    // Runway, which re-exports their few public (and SPI) types. Docs/Architecture.md has who uses each and what it
    // may import.
    products: [
        .library(name: "Runway", targets: ["Runway"]),
        .library(name: "RunwayCore", targets: ["RunwayCore"]),
        .library(name: "RunwayTestKit", targets: ["RunwayTestKit"]),
        .library(name: "RunwayClient", targets: ["RunwayClient"]),
        .executable(name: "runway-sample-app", targets: ["RunwaySampleApp"]),
        .executable(name: "runway", targets: ["RunwayCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The daemon's swift-metrics backend, scraped at `GET /metrics` (MetricsAddress; Docs/Operations.md).
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // `make docs`: the `generate-documentation` command plugin (DocC catalogs under Sources/*/*.docc). A
        // command plugin is built only when invoked, so `swift build` and the embedders' builds do not compile it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The I/O-free core: state machines, budgets, the deadline queue. Standard library only.
        .target(name: "RunwayCore"),
        // The project's one lock, `RunwayLock`: `Synchronization.Mutex`, or under `-Xswiftc -DRUNWAY_TSAN_LOCK`
        // (`make sanitize`) a pthread mutex that ThreadSanitizer sees.
        .target(name: "RunwayLocking"),
        // The version, commit and build type of this build (`runway --version`, `runway_build_info`). The commit is
        // written at build time by the RunwayBuildCommit plugin from git (Scripts/build-commit.sh), `unknown` without
        // a repository.
        .target(name: "RunwayBuildInfo", dependencies: ["RunwayCore"], plugins: ["RunwayBuildCommit"]),
        .plugin(name: "RunwayBuildCommit", capability: .buildTool()),
        // Plist loading and validation with Foundation's PropertyListDecoder; hands the core value types.
        .target(name: "RunwayConfig", dependencies: ["RunwayCore", "RunwayLoop", "RunwayProcesses"]),
        // ManualClock and a harness that drives the core the way a driver would, for tests and demos.
        .target(name: "RunwayTestKit", dependencies: ["RunwayCore"]),
        // The app protocol's lines (A4): Codable types over Foundation's JSON coders, shared by the daemon and
        // RunwayClient.
        .target(name: "RunwayProtocol", dependencies: ["RunwayCore"]),
        // The client library for process apps written in Swift (A4).
        .target(name: "RunwayClient", dependencies: ["RunwayProtocol", "RunwayCore", "RunwayLocking"]),
        // A protocol app in Swift for tests and the demo (Config/Apps/com.example.sample-swift.plist).
        .executableTarget(
            name: "RunwaySampleApp",
            dependencies: ["RunwayClient", "RunwayCore"],
            path: "Examples/SampleApp"
        ),
        // libuv, found through pkg-config; Debian's libuv1-dev provides it.
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
        // The process supervisor's C: the spawn (clone to exec), resource limits, /proc reads, pidfd and descriptor
        // calls. Its warnings (-Wall -Wextra) are checked by `make c-check`: unsafeFlags would refuse the package
        // to every embedder that depends on it by URL.
        .target(name: "CRunwayProcess"),
        // The loop primitives the embedder's scheduler and the process supervisor share: `EventLoopThread` (one
        // libuv loop on its own thread, its inbox and timerfd wake-up), `LoopTimer`, `LoopHandles`, `StreamWrite`,
        // `LoopThreadPriority`. A module of its own so that the supervisor does not import the embedding API.
        .target(name: "RunwayLoop", dependencies: ["RunwayCore", "RunwayLocking", "CLibUV"]),
        // Linux process apps: `ProcessSupervisor` (spawn, suspend, confirm, reap, the protocol channel), the apps'
        // captured output (`AppLogs/`) and `MemoryPressureMonitor`. `package` except `ProcessOptions` and what it
        // holds, which `Runway` re-exports for the embedder under `@_spi(Processes)`.
        .target(
            name: "RunwayProcesses",
            dependencies: [
                "RunwayCore",
                "RunwayLocking",
                "RunwayLoop",
                "RunwayProtocol",
                "CLibUV",
                "CRunwayProcess",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The embedder's library: `RunwayScheduler`, `RunwayApplication` and the driver that runs the core's actions
        // on the loop, for embedded apps and (through RunwayProcesses) process apps.
        .target(
            name: "Runway",
            dependencies: [
                "RunwayCore",
                "RunwayLocking",
                "RunwayLoop",
                "RunwayProcesses",
                "RunwayProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The daemon around the scheduler: control socket protocol (Foundation JSON), scenarios, reload, client.
        .target(
            name: "RunwayControl",
            dependencies: [
                "CLibUV",
                "Runway",
                "RunwayBuildInfo",
                "RunwayConfig",
                "RunwayCore",
                "RunwayLocking",
                "RunwayLoop",
                "RunwayProcesses",
                .product(name: "Logging", package: "swift-log"),
                // The metrics endpoint (MetricsServer.swift): Prometheus text over NIO's HTTP/1 server.
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Two embedded apps in a ServiceGroup, on the real loop (README: "Embedding").
        .executableTarget(
            name: "RunwayExample",
            dependencies: [
                "Runway",
                "RunwayCore",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/EmbeddedApps"
        ),
        // The harness of `runway bench`: workloads (embedded apps, child processes, swift-nio's peer), plans,
        // observations, statistics, the report, baseline and plot. `runway bench` is its entry point.
        .target(
            name: "RunwayBench",
            dependencies: [
                "RunwayCore",
                "RunwayLocking",
                "Runway",
                "RunwayLoop",
                "RunwayProcesses",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // `runway demo`: the seed scenarios played on the core over RunwayTestKit's simulated driver. The one
        // way the shipped `runway` links the test kit.
        .target(
            name: "RunwayDemo",
            dependencies: ["RunwayConfig", "RunwayControl", "RunwayCore", "RunwayTestKit"]
        ),
        .executableTarget(
            name: "RunwayCLI",
            dependencies: [
                "RunwayBuildInfo",
                "RunwayCore",
                "RunwayLocking",
                "RunwayConfig",
                "RunwayControl",
                "Runway",
                "RunwayBench",
                "RunwayLoop",
                "RunwayProcesses",
                "RunwayDemo",
                // `runway bench-child`, the protocol app of `runway bench --processes`.
                "RunwayClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "RunwayCoreTests", dependencies: ["RunwayCore", "RunwayTestKit"]),
        .testTarget(name: "RunwayProtocolTests", dependencies: ["RunwayProtocol", "RunwayCore"]),
        .testTarget(
            name: "RunwayConfigTests",
            dependencies: ["RunwayConfig", "RunwayCore", "RunwayProcesses", "RunwayTestKit"]
        ),
        .testTarget(
            name: "RunwayCLITests",
            dependencies: [
                "CLibUV",
                "CRunwayProcess",
                "RunwayBench",
                "RunwayBuildInfo",
                "RunwayCLI",
                "RunwayClient",
                "RunwayControl",
                "RunwayCore",
                "RunwayProcesses",
                "RunwayTestKit",
            ]
        ),
        // RunwayControl's units without the `runway` binary: run history, state directory, config mapping.
        .testTarget(
            name: "RunwayControlTests",
            dependencies: [
                "Runway", "RunwayConfig", "RunwayControl", "RunwayCore", "RunwayLoop", "RunwayProcesses",
                "RunwayTestKit", "RunwayLocking",
                // DaemonProbesTests: the probes' futures on an event loop of their own.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "RunwayTests",
            dependencies: [
                "Runway",
                "RunwayLocking",
                "CLibUV",
                "CRunwayProcess",
                "RunwayControl",
                "RunwayCore",
                "RunwayLoop",
                "RunwayProcesses",
                "RunwayProtocol",
                "RunwayTestKit",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The fuzz targets of `make fuzz` (Docs/Testing.md), declared only when RUNWAY_FUZZ is set: each is libFuzzer's
// `LLVMFuzzerTestOneInput` without a `main` of its own, so it links only with `--sanitize fuzzer`, and every other
// build (`swift build`, the tests, an embedder's) sees the package without them. They live in this manifest, not a
// package of their own, to reach the `package` and internal decoders the daemon calls (`@testable`, debug builds).
if Context.environment["RUNWAY_FUZZ"] != nil {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzControlRequest", ["RunwayControl", "RunwayCore"]),
        ("FuzzAppProtocol", ["RunwayProtocol", "RunwayCore"]),
        ("FuzzConfigPlist", ["RunwayConfig"]),
        ("FuzzCgroupEvents", ["RunwayProcesses"]),
    ]
    for target in fuzzTargets {
        package.targets.append(
            .executableTarget(name: target.name, dependencies: target.dependencies, path: "Fuzz/Targets/\(target.name)")
        )
        package.products.append(.executable(name: target.name, targets: [target.name]))
    }
}
