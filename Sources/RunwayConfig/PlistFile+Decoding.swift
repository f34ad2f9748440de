import Foundation

// How a config file is decoded: once, by `PropertyListDecoder` (C2), into its top-level keys and its value
// together. Only a file the decoder refuses is read again, the way the error is found: parsed by
// `PropertyListSerialization` (does it parse, is it XML or binary, is its root a dictionary), its keys listed, its
// value decoded, each step throwing the error it finds. A good file is parsed once; a bad one gets the same error
// as when every file went through every step.
extension PlistFile {
    /// The file's value, its top-level keys sorted, from one parse by `PropertyListDecoder`.
    ///
    /// - Throws: The first problem: `malformedFile` when the data is not an XML or binary property list whose root
    ///   is a dictionary, else the first key, in the order `Value` decodes them, whose value is refused, with its
    ///   key path, what the schema expects there and what the file holds.
    func decodeWithKeys<Value: Decodable>(
        _ type: Value.Type,
        schema: PlistSchema
    ) throws(ConfigError) -> (value: Value, keys: [String]) {
        var format = PropertyListDecoder.PropertyListFormat.xml
        let decoded: (value: Value, keys: [String])?
        if !self.isBinaryOrUTF8 {
            // PropertyListDecoder stops the process (a fatal error in FoundationEssentials) on some XML that is
            // not UTF-8: such a file is read by PropertyListSerialization first, on the refusal path below.
            decoded = nil
        } else if Value.self is any PlistKeysListing.Type {
            self.parsed.decodes += 1
            let value = try? PropertyListDecoder().decode(Value.self, from: self.data, format: &format)
            decoded = value.map { ($0, ($0 as? any PlistKeysListing)?.topLevelKeys ?? []) }
        } else {
            self.parsed.decodes += 1
            let both = try? PropertyListDecoder().decode(KeysAndValue<Value>.self, from: self.data, format: &format)
            decoded = both.map { ($0.value, $0.keys) }
        }
        if let decoded, format == .xml || format == .binary {
            self.parsed.keys = Set(decoded.keys)
            return (decoded.value, decoded.keys.sorted())
        }
        // Refused: each step again, alone, so that the first that fails names the problem.
        _ = try self.parsedRoot()
        let keys = try self.topLevelKeys()
        return (try self.decode(Value.self, schema: schema), keys)
    }

    /// True for a binary property list (`bplist`) or for bytes that are UTF-8 text, the two kinds of file the
    /// decoder is given before PropertyListSerialization has read them.
    private var isBinaryOrUTF8: Bool {
        self.data.starts(with: "bplist".utf8) || String(validating: self.data, as: UTF8.self) != nil
    }

    /// The file's value (`decodeWithKeys(_:schema:)` without the keys).
    func decodeValue<Value: Decodable>(_ type: Value.Type, schema: PlistSchema) throws(ConfigError) -> Value {
        try self.decodeWithKeys(Value.self, schema: schema).value
    }

    /// Decodes the file with `PropertyListDecoder` (C2), turning a `DecodingError` into a ``ConfigError`` that
    /// names the key path (`UIBackgroundModes[1]`), what the schema expects there, and what the file holds.
    private func decode<Value: Decodable>(_ type: Value.Type, schema: PlistSchema) throws(ConfigError) -> Value {
        self.parsed.decodes += 1
        do {
            return try PropertyListDecoder().decode(Value.self, from: self.data)
        } catch let error as DecodingError {
            let context: DecodingError.Context?
            let code: ConfigError.Code
            switch error {
            case .typeMismatch(_, let typeContext):
                (context, code) = (typeContext, .wrongType)
            case .valueNotFound(_, let valueContext):
                (context, code) = (valueContext, .missingValue)
            case .keyNotFound(let key, let keyContext):
                let path = self.keyPath(for: keyContext.codingPath + [key])
                throw self.error(code: .missingValue, at: path, expected: schema.expected(at: path))
            case .dataCorrupted(let corruptedContext):
                (context, code) = (corruptedContext, .invalidValue)
            @unknown default:
                (context, code) = (nil, .invalidValue)
            }
            guard let codingPath = context?.codingPath, !codingPath.isEmpty else {
                throw Self.malformed(path: self.path, found: "data the decoder rejects (\(error))")
            }
            let path = self.keyPath(for: codingPath)
            throw self.error(code: code, at: path, expected: schema.expected(at: path))
        } catch {
            throw Self.malformed(path: self.path, found: "data the decoder rejects (\(error))")
        }
    }

    /// Every top-level key, read with `PropertyListDecoder` through a catch-all coding key, in sorted order.
    private func topLevelKeys() throws(ConfigError) -> [String] {
        self.parsed.decodes += 1
        do {
            return try PropertyListDecoder().decode(PlistKeySet.self, from: self.data).keys.sorted()
        } catch {
            throw Self.malformed(path: self.path, found: "data the decoder rejects (\(error))")
        }
    }
}

/// A value decoded from a file's root dictionary that lists the dictionary's keys as it decodes, so that one keyed
/// container serves both: a keyed container costs Foundation's decoder about 20,000 instructions.
protocol PlistKeysListing: Decodable {
    /// Every top-level key of the file, known or not.
    var topLevelKeys: [String] { get }
}

/// A coding key that accepts any name, to list the keys a file actually has.
struct AnyPlistKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// The top-level keys of a plist dictionary.
private struct PlistKeySet: Decodable {
    var keys: [String]

    init(from decoder: any Decoder) throws {
        self.keys = try decoder.container(keyedBy: AnyPlistKey.self).allKeys.map(\.stringValue)
    }
}

/// The top-level keys and the value, decoded from one parse: the keys first, as `topLevelKeys()` lists them, then
/// the value from the same root, as `decode(_:schema:)` decodes it.
private struct KeysAndValue<Value: Decodable>: Decodable {
    var keys: [String]
    var value: Value

    init(from decoder: any Decoder) throws {
        self.keys = try PlistKeySet(from: decoder).keys
        self.value = try Value(from: decoder)
    }
}
