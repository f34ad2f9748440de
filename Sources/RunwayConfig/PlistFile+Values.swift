import RunwayCore

// Checks shared by both kinds of config file. Each returns nil when the key is absent and throws an error that
// names the key when the value is present but not acceptable.
extension PlistFile {
    /// A duration in seconds (C2): finite and >= 0, or > 0 when `positive`. Real or integer in the file.
    func seconds(_ value: Double?, key: PlistKeySpec, positive: Bool = false) throws(ConfigError) -> TimeSpan? {
        guard let value else { return nil }
        let inRange = positive ? value > 0 : value >= 0
        guard inRange, let span = TimeSpan.seconds(value) else {
            throw self.error(at: .key(key.name), expected: key.expected)
        }
        return span
    }

    /// One of the raw values of `Choice`, spelled exactly (case matters).
    func choice<Choice: RawRepresentable & CaseIterable>(
        _ value: String?,
        key: PlistKeySpec,
        as type: Choice.Type
    ) throws(ConfigError) -> Choice? where Choice.RawValue == String {
        guard let value else { return nil }
        guard let choice = Choice(rawValue: value) else {
            throw self.error(at: .key(key.name), expected: key.expected)
        }
        return choice
    }

    /// A percentage within `lower...100`.
    func percentage(
        _ value: Double?,
        key: PlistKeySpec,
        atLeast lower: Double = 0,
        expected: String? = nil
    )
        throws(ConfigError) -> Double?
    {
        guard let value else { return nil }
        guard value.isFinite, value >= lower, value <= 100 else {
            throw self.error(at: .key(key.name), expected: expected ?? key.expected)
        }
        return value
    }

    /// An absolute path without NUL bytes, at most `maximumBytes` bytes of UTF-8.
    func absolutePath(_ value: String?, key: PlistKeySpec, maximumBytes: Int = 4096) throws(ConfigError) -> String? {
        guard let value else { return nil }
        guard value.hasPrefix("/"), !value.utf8.contains(0), value.utf8.count <= maximumBytes else {
            throw self.error(at: .key(key.name), expected: key.expected)
        }
        return value
    }

    /// One warning per key of `keys` (the file's top-level keys, sorted) that `schema` does not know, with a hint
    /// when the key is a near miss (different case) or belongs in the other kind of file.
    func unknownKeyWarnings(_ keys: [String], schema: PlistSchema, otherSchema: PlistSchema) -> [ConfigWarning] {
        var warnings: [ConfigWarning] = []
        for name in keys where !schema.contains(name) {
            var message = "unknown key, ignored"
            if let hint = schema.hints[name] {
                message += "; " + hint
            } else if let match = schema.specs.first(where: { $0.name.lowercased() == name.lowercased() }) {
                message += "; did you mean \(match.name)? (keys are case-sensitive)"
            } else if otherSchema.contains(name) {
                message += "; \(name) belongs in \(otherSchema.fileKind)"
            }
            warnings.append(self.warning(at: .key(name), message))
        }
        return warnings
    }
}

extension [ConfigWarning] {
    /// Sorted by key path; warnings with equal key paths keep their order.
    func sortedByKeyPath() -> [ConfigWarning] {
        self.enumerated()
            .sorted { ($0.element.keyPath, $0.offset) < ($1.element.keyPath, $1.offset) }
            .map(\.element)
    }
}
