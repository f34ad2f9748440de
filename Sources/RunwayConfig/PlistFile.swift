import Foundation
import RunwayCore

/// One config file, read and parsed: the bytes for `PropertyListDecoder`, and the raw root dictionary from
/// `PropertyListSerialization` to describe what was found when a value is rejected.
///
/// Not thread-safe; each load creates its own. Only XML and binary property lists whose root is a dictionary
/// are accepted (C2); the old OpenStep text format is rejected.
struct PlistFile {
    /// Files larger than this are refused rather than read: 1 MiB is far beyond any real Info.plist.
    static let maximumBytes = 1 << 20
    static let expectedFile = "a readable property list file of at most 1 MiB"
    static let expectedPropertyList = "a property list (XML or binary) whose root is a dictionary"

    /// The path as it will appear in errors and warnings.
    let path: String
    let data: Data
    let root: [String: Any]

    /// Reads and parses the file at `path`.
    ///
    /// - Throws: `unreadableFile` when the file cannot be read or is too large, `malformedFile` when it is not
    ///   an XML or binary property list with a dictionary at the root. Both have a nil key path.
    static func read(path: String) throws(ConfigError) -> PlistFile {
        let data = try Self.readBytes(path: path)
        var format = PropertyListSerialization.PropertyListFormat.xml
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            let found = reason.map { "data that does not parse (\($0))" } ?? "data that does not parse"
            throw Self.malformed(path: path, found: found)
        }
        guard format == .xml || format == .binary else {
            throw Self.malformed(path: path, found: "an old-style (OpenStep) property list")
        }
        guard let root = object as? [String: Any] else {
            throw Self.malformed(path: path, found: describePlistValue(object))
        }
        return PlistFile(path: path, data: data, root: root)
    }

    private static func readBytes(path: String) throws(ConfigError) -> Data {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ConfigError(
                code: .unreadableFile,
                file: path,
                keyPath: nil,
                found: "a directory",
                expected: Self.expectedFile
            )
        }
        let data: Data?
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: Self.maximumBytes + 1)
        } catch {
            throw ConfigError(
                code: .unreadableFile,
                file: path,
                keyPath: nil,
                found: Self.describeReadFailure(error),
                expected: Self.expectedFile
            )
        }
        let bytes = data ?? Data()
        guard bytes.count <= Self.maximumBytes else {
            throw ConfigError(
                code: .unreadableFile,
                file: path,
                keyPath: nil,
                found: "a file larger than 1 MiB",
                expected: Self.expectedFile
            )
        }
        return bytes
    }

    private static func describeReadFailure(_ error: any Error) -> String {
        switch (error as? CocoaError)?.code {
        case .fileReadNoSuchFile?, .fileNoSuchFile?:
            return "nothing (no such file, or a dangling symbolic link)"
        case .fileReadNoPermission?:
            return "a file that may not be read (permission denied)"
        default:
            return "a file that cannot be read (\((error as NSError).localizedDescription))"
        }
    }

    private static func malformed(path: String, found: String) -> ConfigError {
        ConfigError(code: .malformedFile, file: path, keyPath: nil, found: found, expected: Self.expectedPropertyList)
    }

    /// Decodes the file with `PropertyListDecoder` (C2), turning a `DecodingError` into a ``ConfigError`` that
    /// names the key path (`UIBackgroundModes[1]`), what the schema expects there, and what the file holds.
    func decode<Value: Decodable>(_ type: Value.Type, schema: PlistSchema) throws(ConfigError) -> Value {
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
    func topLevelKeys() throws(ConfigError) -> [String] {
        do {
            return try PropertyListDecoder().decode(PlistKeySet.self, from: self.data).keys.sorted()
        } catch {
            throw Self.malformed(path: self.path, found: "data the decoder rejects (\(error))")
        }
    }

    /// The raw value at `path`, or nil when there is none.
    func value(at path: PlistKeyPath) -> Any? {
        var current: Any = self.root
        for component in path.components {
            switch component {
            case .key(let name):
                guard let dictionary = current as? [String: Any], let next = dictionary[name] else { return nil }
                current = next
            case .index(let index):
                guard let array = current as? [Any], array.indices.contains(index) else { return nil }
                current = array[index]
            }
        }
        return current
    }

    /// An error at `path`; what was found is read from the file itself.
    func error(code: ConfigError.Code = .invalidValue, at path: PlistKeyPath, expected: String) -> ConfigError {
        ConfigError(
            code: code,
            file: self.path,
            keyPath: path.description,
            found: describePlistValue(self.value(at: path)),
            expected: expected
        )
    }

    func warning(at path: PlistKeyPath, _ message: String) -> ConfigWarning {
        ConfigWarning(file: self.path, keyPath: path.description, message: message)
    }

    /// Maps a decoder's coding path onto the file: a key with an integer value inside an array is an index,
    /// anything else is a key.
    private func keyPath(for codingPath: [any CodingKey]) -> PlistKeyPath {
        var path = PlistKeyPath([])
        for key in codingPath {
            if let index = key.intValue, self.value(at: path) is [Any] {
                path = path.appending(.index(index))
            } else {
                path = path.appending(.key(key.stringValue))
            }
        }
        return path
    }
}

/// A coding key that accepts any name, to list the keys a file actually has.
private struct AnyPlistKey: CodingKey {
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
