// swift-tools-version: 6.1
import PackageDescription

// A scale-to-zero function host on Hummingbird and Runway (README.md). A package of its own, depending on Runway by
// path, so that the main package does not grow a Hummingbird dependency. Hummingbird's default traits
// (swift-configuration support, full Foundation) are off: the host needs neither, and the build is shorter without.
let package = Package(
    name: "FunctionHost",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Runway", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // The host: the HTTP router, the embedded RunwayScheduler with one protocol process app per function, the
        // proxy over each function's Unix socket, the idle timers and the status page.
        .executableTarget(
            name: "FunctionHost",
            dependencies: [
                .product(name: "Runway", package: "Runway"),
                .product(name: "RunwayCore", package: "Runway"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The Swift sample function: a protocol process app (RunwayClient) serving its HTTP surface with
        // Hummingbird on the Unix socket the host gives it (FUNCTION_SOCKET).
        .executableTarget(
            name: "SwiftFunction",
            dependencies: [
                .product(name: "RunwayClient", package: "Runway"),
                .product(name: "RunwayCore", package: "Runway"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Drives the host over real HTTP on loopback, with real function processes and cgroups.
        .testTarget(
            name: "FunctionHostTests",
            dependencies: [
                "FunctionHost",
                .product(name: "Runway", package: "Runway"),
                .product(name: "RunwayCore", package: "Runway"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
