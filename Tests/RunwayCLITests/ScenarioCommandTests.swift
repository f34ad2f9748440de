import Foundation
import RunwayControl
import RunwayTestKit
import Testing

/// K3 with the real CLI: every shipped scenario holds against a real daemon, and a bad scenario is refused naming
/// its file, line and field.
@Suite(.serialized) struct ScenarioCommandTests {
    static let alpha = "com.example.alpha"

    @Test func K3_everyShippedScenarioHolds() throws {
        let scenarios = try FileManager.default.contentsOfDirectory(atPath: RunwayBinary.shippedConfig + "/Scenarios")
            .filter { $0.hasSuffix(".jsonl") }.sorted()
        #expect(scenarios.count == 18, "S1-S15, demo, wake and restore: \(scenarios)")
        // In parallel (each daemon on its own socket): the longest scenario bounds the test's time.
        let runs = try scenarios.map { name in
            let socket = "/tmp/runway-scenario-\(UUID().uuidString.prefix(8)).sock"
            return (
                name,
                try BackgroundCommand(
                    try RunwayBinary.executable(),
                    [
                        "run", "--config", RunwayBinary.shippedConfig, "--scenario",
                        RunwayBinary.shippedConfig + "/Scenarios/" + name, "--socket", socket,
                    ]
                )
            )
        }
        defer { for (_, run) in runs { run.close() } }
        for (name, run) in runs {
            try waitUntil("scenario \(name) to finish", timeout: .seconds(60)) { !run.process.isRunning }
            #expect(run.process.terminationStatus == 0, "\(name):\n\(run.output)")
            #expect(run.output.contains("every step held"), "\(name):\n\(run.output)")
        }
    }

    @Test func K3_badScenarioNamesFileLineAndField() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("a.plist", identifier: Self.alpha)
        let cases: [(String, String)] = [
            (#"{"at": 0, "app": "com.example.alpha", "do": "hom"}"#, "field 'do': unknown action 'hom'"),
            (#"{"at": "soon", "app": "com.example.alpha", "do": "home"}"#, "field 'at': expected a number"),
            (#"{"at": 1, "app": "com.example.zeta", "do": "home"}"#, "field 'app': no app 'com.example.zeta'"),
            (#"{"at": 1, "app": "com.example.alpha", "do": "home", "colour": "red"}"#, "unknown field 'colour'"),
            (#"{"at": 1, "app": "com.example.alpha"}"#, "exactly one of 'do'"),
            ("{not json", "not valid JSON"),
        ]
        for (line, expected) in cases {
            let file = try config.write("bad.jsonl", "# a comment\n\n" + line + "\n")
            let result = try RunwayBinary.run([
                "run", "--config", config.path, "--scenario", file, "--socket",
                "/tmp/unused-\(UUID().uuidString.prefix(8))",
            ])
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("\(file):3: \(expected)"), "\(result)")
        }
    }
}
