// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Runway",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "RunwayCore", targets: ["RunwayCore"]),
        .library(name: "RunwayConfig", targets: ["RunwayConfig"]),
        .library(name: "RunwayTestKit", targets: ["RunwayTestKit"]),
        .library(name: "Runway", targets: ["Runway"]),
        .executable(name: "runway", targets: ["RunwayCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The I/O-free core: state machines, budgets, the deadline queue. Standard library only.
        .target(name: "RunwayCore"),
        // Plist loading and validation with Foundation's PropertyListDecoder; hands the core value types.
        .target(name: "RunwayConfig", dependencies: ["RunwayCore"]),
        // ManualClock and a harness that drives the core the way a driver would, for tests and demos.
        .target(name: "RunwayTestKit", dependencies: ["RunwayCore"]),
        // libuv, found through pkg-config; Debian's libuv1-dev provides it.
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
        // The edge: a libuv loop on its own thread that runs the core's actions under real time.
        .target(name: "Runway", dependencies: ["RunwayCore", "CLibUV"]),
        .executableTarget(
            name: "RunwayCLI",
            dependencies: [
                "RunwayCore",
                "RunwayConfig",
                "RunwayTestKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "RunwayCoreTests", dependencies: ["RunwayCore", "RunwayTestKit"]),
        .testTarget(name: "RunwayConfigTests", dependencies: ["RunwayConfig", "RunwayCore"]),
        .testTarget(name: "RunwayCLITests", dependencies: ["RunwayCLI"]),
        .testTarget(name: "RunwayTests", dependencies: ["Runway", "RunwayCore"]),
    ],
    swiftLanguageModes: [.v6]
)
