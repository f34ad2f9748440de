import Foundation

/// The host's configuration, `functions.json`: how long a function may sit idle in the foreground and the functions
/// it serves. Relative program paths are resolved against the file's directory.
struct FunctionsConfig: Sendable, Equatable {
    /// One function: a protocol process app started by Runway.
    struct Function: Sendable, Equatable {
        /// Its name in `/fn/NAME/...`: 1 to 64 of `A-Z a-z 0-9 - _`.
        var name: String
        /// The program and its arguments; the first is resolved against the file's directory when relative.
        var program: [String]
        /// Its background time budget (B3), 0.1 to 3,600 s.
        var budgetSeconds: Double
        /// Ends the process instead of suspending it (E1), for a function that must not keep state.
        var exitsOnSuspend: Bool
    }

    /// Seconds without a request after which a function is sent to the background (0.05 to 3,600; default 2).
    var idleSeconds: Double
    var functions: [Function]

    static let idleSecondsRange = 0.05...3_600.0
    static let budgetSecondsRange = 0.1...3_600.0
    /// The most functions one host serves: each is a process and a socket.
    static let functionLimit = 64
    static let defaultIdleSeconds = 2.0
    static let defaultBudgetSeconds = 5.0
}

/// A configuration that cannot be used: the file, the key (a JSON path such as `functions[1].budgetSeconds`) and
/// what was expected.
struct FunctionsConfigError: Error, CustomStringConvertible, Equatable {
    var file: String
    var key: String
    var expected: String

    var description: String { "\(self.file): \(self.key): \(self.expected)" }
}

extension FunctionsConfig {
    /// Reads and validates `path`. Programs given as relative paths (with a `/`) become absolute, from the file's
    /// directory; a bare name (`python3`) is looked up in the PATH. Each program must be an executable file now, so
    /// that a typo stops the host at start rather than failing every request to the function.
    ///
    /// - Throws: `FunctionsConfigError` naming the file, the key and what was expected.
    static func load(path: String) throws(FunctionsConfigError) -> FunctionsConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FunctionsConfigError(file: path, key: "(file)", expected: "a readable file")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var config = try Self.parse(data, file: path, directory: directory)
        for index in config.functions.indices {
            let program = config.functions[index].program[0]
            guard let found = Self.executable(program) else {
                let inPath = program.contains("/") ? "" : " in the PATH"
                throw FunctionsConfigError(
                    file: path,
                    key: "functions[\(index)].program",
                    expected: "an executable file first (\(program) is not one\(inPath))"
                )
            }
            config.functions[index].program[0] = found
        }
        return config
    }

    /// `program` when it is an executable file, or the first executable of that name in the PATH for a bare name.
    static func executable(_ program: String) -> String? {
        let files = FileManager.default
        guard !program.contains("/") else { return files.isExecutableFile(atPath: program) ? program : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first { files.isExecutableFile(atPath: $0) }
    }

    /// Validates the JSON in `data`; `file` names it in errors, `directory` resolves relative programs.
    static func parse(_ data: Data, file: String, directory: String) throws(FunctionsConfigError) -> FunctionsConfig {
        func fail(_ key: String, _ expected: String) -> FunctionsConfigError {
            FunctionsConfigError(file: file, key: key, expected: expected)
        }
        guard case .object(let root)? = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            throw fail("(root)", "a JSON object")
        }
        for key in root.keys.sorted() where !["idleSeconds", "functions"].contains(key) {
            throw fail(key, "no such key (expected idleSeconds, functions)")
        }
        let idle = try Self.seconds(root["idleSeconds"], Self.defaultIdleSeconds, Self.idleSecondsRange)
            .get(or: fail("idleSeconds", "a number of seconds in \(Self.idleSecondsRange)"))
        guard case .array(let list)? = root["functions"], !list.isEmpty, list.count <= Self.functionLimit else {
            throw fail("functions", "an array of 1 to \(Self.functionLimit) functions")
        }
        var functions: [Function] = []
        for (index, item) in list.enumerated() {
            let at = "functions[\(index)]"
            guard case .object(let object) = item else { throw fail(at, "an object") }
            for key in object.keys.sorted() where !Self.functionKeys.contains(key) {
                throw fail("\(at).\(key)", "no such key (expected \(Self.functionKeys.joined(separator: ", ")))")
            }
            guard case .string(let name)? = object["name"], Self.isValidName(name) else {
                throw fail("\(at).name", "a name of 1 to 64 characters from A-Z a-z 0-9 - _")
            }
            guard !functions.contains(where: { $0.name == name }) else {
                throw fail("\(at).name", "a name no other function has (\"\(name)\" is taken)")
            }
            guard case .array(let items)? = object["program"], let program = Self.strings(items),
                let first = program.first, !first.isEmpty
            else {
                throw fail("\(at).program", "a non-empty array of strings, the program first")
            }
            let budget = try Self.seconds(object["budgetSeconds"], Self.defaultBudgetSeconds, Self.budgetSecondsRange)
                .get(or: fail("\(at).budgetSeconds", "a number of seconds in \(Self.budgetSecondsRange)"))
            var exitsOnSuspend = false
            switch object["exitsOnSuspend"] {
            case nil: break
            case .bool(let value)?: exitsOnSuspend = value
            default: throw fail("\(at).exitsOnSuspend", "true or false")
            }
            var resolved = program
            if first.contains("/") && !first.hasPrefix("/") {
                resolved[0] =
                    URL(fileURLWithPath: first, relativeTo: URL(fileURLWithPath: directory + "/"))
                    .standardizedFileURL.path
            }
            functions.append(
                Function(name: name, program: resolved, budgetSeconds: budget, exitsOnSuspend: exitsOnSuspend)
            )
        }
        return FunctionsConfig(idleSeconds: idle, functions: functions)
    }

    static let functionKeys = ["name", "program", "budgetSeconds", "exitsOnSuspend"]

    static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }

    /// A JSON number in `range`, `fallback` when absent, nil when of another type or out of range.
    private static func seconds(_ value: JSONValue?, _ fallback: Double, _ range: ClosedRange<Double>) -> Double? {
        guard let value else { return fallback }
        guard case .number(let seconds) = value, range.contains(seconds) else { return nil }
        return seconds
    }

    private static func strings(_ items: [JSONValue]) -> [String]? {
        var strings: [String] = []
        for item in items {
            guard case .string(let string) = item else { return nil }
            strings.append(string)
        }
        return strings
    }
}

/// A JSON document as decoded, keeping booleans apart from numbers (JSONDecoder refuses `true` as a `Double`).
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}

extension Optional {
    /// The value, or `error` thrown.
    fileprivate func get<E: Error>(or error: E) throws(E) -> Wrapped {
        guard let self else { throw error }
        return self
    }
}
