/// What one known key of a config file holds, in the words an error uses after "expected".
struct PlistKeySpec: Sendable {
    /// The key as written in the plist.
    var name: String
    /// What the key's value must be.
    var expected: String
    /// What each element must be, for arrays and dictionaries (used for key paths below the key).
    var elementExpected: String?

    init(_ key: some CodingKey, expected: String, elementExpected: String? = nil) {
        self.name = key.stringValue
        self.expected = expected
        self.elementExpected = elementExpected
    }
}

/// The known keys of one kind of config file. Keys outside it are warned about (C2).
struct PlistSchema: Sendable {
    /// A name for the kind of file, used in hints: `Runway.plist`, `an app Info.plist`.
    var fileKind: String
    var specs: [PlistKeySpec]
    /// Hints for unknown keys that are common mistakes, by key: `BackgroundTimeBudget` in an app file.
    var hints: [String: String] = [:]

    func spec(named name: String) -> PlistKeySpec? {
        self.specs.first { $0.name == name }
    }

    func contains(_ name: String) -> Bool {
        self.spec(named: name) != nil
    }

    /// What the value at `path` must be: the key's own expectation at the top level, the element expectation
    /// below it.
    func expected(at path: PlistKeyPath) -> String {
        guard let name = path.topLevelKey, let spec = self.spec(named: name) else { return "no value here" }
        if path.components.count > 1, let element = spec.elementExpected { return element }
        return spec.expected
    }
}

/// Phrases shared by the schemas, so that every duration and choice is described the same way.
enum Expected {
    static let seconds = "a finite number of seconds >= 0 (real or integer)"
    static let positiveSeconds = "a finite number of seconds > 0 (real or integer)"
    /// A restart wait: `RestartPolicy.minimumRestartWait` (0.1 s) or more.
    static let restartWait = "a finite number of seconds >= 0.1 (real or integer; at most ten restarts a second)"
    static let percentage = "a percentage from 0 to 100 (real or integer)"
    static let boolean = "a boolean (<true/> or <false/>)"
    static let string = "a string"

    /// `one of "terminate", "suspend"`.
    static func oneOf<Choice: RawRepresentable & CaseIterable>(_ type: Choice.Type) -> String
    where Choice.RawValue == String {
        "one of " + Choice.allCases.map { quotedPlistString($0.rawValue) }.joined(separator: ", ")
    }
}
