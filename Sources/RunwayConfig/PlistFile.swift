import Foundation
@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#endif

/// One config file, read: its bytes for `PropertyListDecoder`, which reads them once per load
/// (`PlistFile+Decoding.swift`), and its root dictionary as `PropertyListSerialization` reads it, parsed only when
/// something asks for it (`root`): to describe what was found when a value is rejected, or to find what the
/// decoder refused.
///
/// Not thread-safe; each load creates its own. Only XML and binary property lists whose root is a dictionary
/// are accepted (C2); the old OpenStep text format is rejected.
struct PlistFile {
    /// The size limit of a config file: larger files are refused rather than read; 1 MiB is far beyond any real
    /// Info.plist (Docs/Configuration.md, "Limits").
    static let maximumBytes = 1 << 20
    static let expectedFile = "a readable regular file of at most 1 MiB (the size limit of a config file)"
    static let expectedPropertyList = "a property list (XML or binary) whose root is a dictionary"

    /// The path as it will appear in errors and warnings.
    let path: String
    let data: Data
    /// What was parsed of the file so far; shared by the copies of this value.
    let parsed = Parsed()

    /// The parses of one file that are kept once made. A class, so that a `PlistFile` passed by value keeps them.
    final class Parsed {
        /// The root dictionary from `PropertyListSerialization`, once `parsedRoot()` has read it.
        var root: [String: Any]?
        /// The file's top-level keys, once the decoder or `parsedRoot()` has listed them.
        var keys: Set<String>?
        /// Passes of `PropertyListDecoder` over the file so far.
        var decodes = 0
        /// Parses by `PropertyListSerialization` so far: 0 or 1.
        var serializationParses = 0
    }

    /// Reads the file at `path`. Whether it parses is found by the first decode (`decode(_:schema:)`).
    ///
    /// - Throws: `unreadableFile` when the file cannot be read, is not a regular file (a FIFO, a device, a
    ///   directory, ...) or is too large, `malformedFile` for a binary property list holding a set. Both have a nil
    ///   key path.
    static func read(path: String) throws(ConfigError) -> PlistFile {
        let data = try Self.readBytes(path: path)
        if BinaryPlistSets.found(in: data) {
            throw Self.malformed(path: path, found: "a binary property list holding a set, which is not a plist type")
        }
        return PlistFile(path: path, data: data)
    }

    /// The root dictionary as `PropertyListSerialization` reads it; parsed at the first call, then kept.
    ///
    /// - Throws: `malformedFile` when the data is not an XML or binary property list with a dictionary at the
    ///   root, with a nil key path.
    func parsedRoot() throws(ConfigError) -> [String: Any] {
        if let root = self.parsed.root { return root }
        self.parsed.serializationParses += 1
        var format = PropertyListSerialization.PropertyListFormat.xml
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: self.data, options: [], format: &format)
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            let found = reason.map { "data that does not parse (\($0))" } ?? "data that does not parse"
            throw Self.malformed(path: self.path, found: found)
        }
        guard format == .xml || format == .binary else {
            throw Self.malformed(path: self.path, found: "an old-style (OpenStep) property list")
        }
        guard let root = object as? [String: Any] else {
            throw Self.malformed(path: self.path, found: describePlistValue(object))
        }
        self.parsed.root = root
        self.parsed.keys = Set(root.keys)
        return root
    }

    /// The root dictionary, or an empty one when the file does not parse as one (only errors read it then, and
    /// the decoder has refused such a file before any value is looked at).
    var root: [String: Any] { (try? self.parsedRoot()) ?? [:] }

    /// True when the file has `name` at the top level. O(1) once decoded.
    func contains(key name: String) -> Bool {
        if let keys = self.parsed.keys { return keys.contains(name) }
        return self.root[name] != nil
    }

    /// The file's bytes. Only a regular file is read, and never more than `maximumBytes`: anything else (a FIFO,
    /// a device, a socket, a directory) is refused by name before it is opened, and once more on the opened
    /// descriptor (fstat) in case it was swapped in between. The open is non-blocking, so that no file, whatever
    /// it is, can make the read wait for a writer (a FIFO in `Apps/` would otherwise hang `validate` and a reload
    /// for ever).
    private static func readBytes(path: String) throws(ConfigError) -> Data {
        var info = stat()
        guard stat(path, &info) == 0 else { throw Self.unreadable(path: path, errno: errno) }
        try Self.checkKind(info, path: path)
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw Self.unreadable(path: path, errno: errno) }
        defer { _ = close(fd) }
        guard fstat(fd, &info) == 0 else { throw Self.unreadable(path: path, errno: errno) }
        try Self.checkKind(info, path: path)
        // Up to one byte more than the limit, to tell a file that grew past it since fstat.
        // A chunk one byte larger than the file takes it in one read, and the next read sees the end; a file of
        // 1 KiB does not pay for zeroing 64 KiB.
        var bytes = Data()
        var chunk = [UInt8](repeating: 0, count: min(Int(info.st_size) + 1, 65_536))
        while bytes.count <= Self.maximumBytes {
            let result = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if result < 0 {
                if errno == EINTR { continue }
                throw Self.unreadable(path: path, errno: errno)
            }
            if result == 0 { break }
            bytes.append(contentsOf: chunk[..<result])
        }
        guard bytes.count <= Self.maximumBytes else { throw Self.tooLarge(path: path) }
        return bytes
    }

    /// Refuses anything but a regular file (a FIFO, a device, a socket, a directory), naming what it is, and a
    /// regular file over the size limit.
    private static func checkKind(_ info: stat, path: String) throws(ConfigError) {
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ConfigError(
                code: .unreadableFile,
                file: path,
                keyPath: nil,
                found: "\(describeFileType(mode: UInt32(info.st_mode))), not a regular file",
                expected: Self.expectedFile
            )
        }
        guard info.st_size <= Self.maximumBytes else { throw Self.tooLarge(path: path) }
    }

    private static func tooLarge(path: String) -> ConfigError {
        ConfigError(
            code: .unreadableFile,
            file: path,
            keyPath: nil,
            found: "a file larger than 1 MiB",
            expected: Self.expectedFile
        )
    }

    private static func unreadable(path: String, errno error: Int32) -> ConfigError {
        let found: String
        switch error {
        case ENOENT:
            found = "nothing (no such file, or a dangling symbolic link)"
        case EACCES, EPERM:
            found = "a file that may not be read (permission denied)"
        default:
            found = "a file that cannot be read (\(String(cString: strerror(error))))"
        }
        return ConfigError(code: .unreadableFile, file: path, keyPath: nil, found: found, expected: Self.expectedFile)
    }

    static func malformed(path: String, found: String) -> ConfigError {
        ConfigError(code: .malformedFile, file: path, keyPath: nil, found: found, expected: Self.expectedPropertyList)
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

    /// An error at `path`; what was found is read from the file itself, parsed by `PropertyListSerialization`. A
    /// file that parser refuses gets its `malformedFile` error instead, as when every file was parsed by it first.
    func error(code: ConfigError.Code = .invalidValue, at path: PlistKeyPath, expected: String) -> ConfigError {
        do {
            _ = try self.parsedRoot()
        } catch {
            return error
        }
        return ConfigError(
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
    func keyPath(for codingPath: [any CodingKey]) -> PlistKeyPath {
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
