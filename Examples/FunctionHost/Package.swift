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
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
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
        )
    ],
    swiftLanguageModes: [.v6]
)
