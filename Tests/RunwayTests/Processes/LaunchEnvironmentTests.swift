@_spi(Processes) import RunwayCore
@_spi(Benchmarks) import RunwayTestKit
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

/// A launch's environment is merged into this process's, kept sorted once per loop turn; the result
/// must be exactly what copying, overriding and sorting the whole environment gives.
@Suite("Launch environment")
struct LaunchEnvironmentTests {
    /// The environment built the plain way, as the reference: a dictionary merge, then a sort by key.
    private static func reference(_ base: [String: String], app: AppID, spec: ProcessSpec) -> [String] {
        var environment = base.filter { !LaunchEnvironment.daemonOnlyKeys.contains($0.key) }
        for (key, value) in spec.environment { environment[key] = value }
        environment["RUNWAY_APP"] = app.bundleIdentifier
        if spec.speaksProtocol { environment["RUNWAY_FD"] = "3" }
        return environment.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }
    }

    @Test("The app's variables override this process's and land in key order, RUNWAY_APP and RUNWAY_FD last")
    func overridesInOrder() {
        let base = ["PATH": "/bin", "HOME": "/root", "RUNWAY_APP": "parent", "A": "1", "Z": "26"]
        let spec = ProcessSpec(
            arguments: ["/bin/true"],
            environment: ["HOME": "/app", "B": "2", "RUNWAY_APP": "forged", "ZZ": "x"],
            speaksProtocol: true
        )
        let app = AppID("com.example.env")
        let entries = LaunchEnvironment(base).entries(for: app, spec: spec)
        #expect(
            entries == [
                "A=1", "B=2", "HOME=/app", "PATH=/bin", "RUNWAY_APP=com.example.env", "RUNWAY_FD=3", "Z=26",
                "ZZ=x",
            ]
        )
        #expect(entries == Self.reference(base, app: app, spec: spec))
    }

    @Test("Random environments give what the whole-environment merge gives")
    func matchesTheReference() {
        var generator = SeededRandom(seed: 0x5EED_1500)
        let alphabet = Array("ABRUNWAY_az019=")
        func word() -> String {
            String(
                (0..<Int.random(in: 1...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            )
        }
        for round in 0..<500 {
            var base: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...12, using: &generator) { base[word()] = word() }
            var own: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                own[Bool.random(using: &generator) ? word() : base.keys.randomElement(using: &generator) ?? word()] =
                    word()
            }
            let spec = ProcessSpec(
                arguments: ["/bin/true"],
                environment: own,
                speaksProtocol: Bool.random(using: &generator)
            )
            let app = AppID("com.example.r\(round)")
            #expect(
                LaunchEnvironment(base).entries(for: app, spec: spec) == Self.reference(base, app: app, spec: spec),
                "round \(round): base \(base), own \(own)"
            )
        }
    }
}
