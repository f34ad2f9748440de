import Foundation
import Testing

@testable import FunctionHost

/// `functions.json` validation: every error names the file, the key and what was expected.
struct FunctionsConfigTests {
    static func parse(_ json: String) throws(FunctionsConfigError) -> FunctionsConfig {
        try FunctionsConfig.parse(Data(json.utf8), file: "/etc/fh/functions.json", directory: "/etc/fh")
    }

    @Test
    func aValidFileGivesDefaultsAndResolvesRelativePrograms() throws {
        let config = try Self.parse(
            #"{"functions": [{"name": "py", "program": ["/usr/bin/python3", "f.py"]},"#
                + #" {"name": "sw", "program": [".build/debug/SwiftFunction"], "budgetSeconds": 2.5,"#
                + #" "exitsOnSuspend": true}]}"#
        )
        #expect(config.idleSeconds == 2)
        #expect(
            config.functions[0]
                == .init(name: "py", program: ["/usr/bin/python3", "f.py"], budgetSeconds: 5, exitsOnSuspend: false)
        )
        #expect(config.functions[1].program == ["/etc/fh/.build/debug/SwiftFunction"])
        #expect(config.functions[1].budgetSeconds == 2.5 && config.functions[1].exitsOnSuspend)
    }

    @Test(arguments: [
        (#"[]"#, "(root)", "a JSON object"),
        (#"{"functions": []}"#, "functions", "an array of 1 to 64 functions"),
        (#"{"idleSeconds": "2", "functions": [{"name": "a", "program": ["x"]}]}"#, "idleSeconds", "a number"),
        (#"{"idleSeconds": 0, "functions": [{"name": "a", "program": ["x"]}]}"#, "idleSeconds", "in 0.05...3600"),
        (#"{"idle": 1, "functions": [{"name": "a", "program": ["x"]}]}"#, "idle", "no such key"),
        (#"{"functions": [{"name": "a b", "program": ["x"]}]}"#, "functions[0].name", "A-Z a-z 0-9 - _"),
        (#"{"functions": [{"name": "a", "program": []}]}"#, "functions[0].program", "non-empty array"),
        (#"{"functions": [{"name": "a", "program": [1]}]}"#, "functions[0].program", "array of strings"),
        (
            #"{"functions": [{"name": "a", "program": ["x"], "budgetSeconds": -1}]}"#, "functions[0].budgetSeconds",
            "in 0.1...3600"
        ),
        (
            #"{"functions": [{"name": "a", "program": ["x"], "exitsOnSuspend": 1}]}"#, "functions[0].exitsOnSuspend",
            "true or false"
        ),
        (
            #"{"functions": [{"name": "a", "program": ["x"]}, {"name": "a", "program": ["y"]}]}"#, "functions[1].name",
            "is taken"
        ),
        (#"{"functions": [{"name": "a", "program": ["x"], "budget": 1}]}"#, "functions[0].budget", "no such key"),
    ])
    func badInputNamesTheFileTheKeyAndWhatWasExpected(json: String, key: String, expected: String) {
        #expect {
            _ = try Self.parse(json)
        } throws: { error in
            guard let error = error as? FunctionsConfigError else { return false }
            return error.file == "/etc/fh/functions.json" && error.key == key && error.expected.contains(expected)
                && "\(error)".hasPrefix("/etc/fh/functions.json: \(key): ")
        }
    }

    @Test
    func aMissingFileIsNamed() {
        #expect(
            throws: FunctionsConfigError(
                file: "/nonexistent/functions.json",
                key: "(file)",
                expected: "a readable file"
            )
        ) {
            try FunctionsConfig.load(path: "/nonexistent/functions.json")
        }
    }

    @Test
    func aProgramThatIsNotAnExecutableFileStopsTheHostNamingTheFunction() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fh-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/functions.json"
        let json =
            #"{"functions": [{"name": "a", "program": ["sh"]}, {"name": "b", "program": ["/nonexistent/prog"]}]}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: FunctionsConfigError.self) { try FunctionsConfig.load(path: file) }
        do {
            _ = try FunctionsConfig.load(path: file)
        } catch {
            #expect(error.key == "functions[1].program")
            #expect(error.description.contains("/nonexistent/prog is not one"))
        }
        try Data(#"{"functions": [{"name": "a", "program": ["sh", "-c", "true"]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: file))
        let found = try FunctionsConfig.load(path: file).functions[0].program[0]
        #expect(found.hasPrefix("/") && found.hasSuffix("/sh"))
    }
}
