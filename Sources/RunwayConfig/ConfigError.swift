/// Why a configuration was rejected (C2): the file, the key path, what was found and what was expected.
///
/// The loader throws the first error it finds and applies nothing (C3). Example description:
///
///     Config/Apps/com.example.sync.plist: RunwayBackgroundTimeBudget: expected a finite number of seconds
///     >= 0 (real or integer), found string "thirty"
package struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem this is. Opaque so that new kinds can be added; compare with the static members.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case missingDirectory
            case unreadableFile
            case malformedFile
            case wrongType
            case invalidValue
            case missingValue
            case duplicateIdentifier
        }

        private var base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The config directory, or its `Apps/` folder, does not exist or is not a directory.
        package static let missingDirectory = Code(.missingDirectory)
        /// A file exists but cannot be read (permissions, too large, not a regular file).
        package static let unreadableFile = Code(.unreadableFile)
        /// A file is not a property list in XML or binary format, or its root is not a dictionary.
        package static let malformedFile = Code(.malformedFile)
        /// A key holds a value of the wrong type (a string for a duration, a number in an array of strings).
        package static let wrongType = Code(.wrongType)
        /// A key holds a value of the right type that is out of range or not allowed.
        package static let invalidValue = Code(.invalidValue)
        /// A required key is absent (`CFBundleIdentifier`; `RSSCeilingBytes` when the source is `rss`).
        package static let missingValue = Code(.missingValue)
        /// Two app files declare the same `CFBundleIdentifier` (compared ignoring case).
        package static let duplicateIdentifier = Code(.duplicateIdentifier)

        package var description: String { self.base.rawValue }
    }

    /// What kind of problem this is.
    package var code: Code
    /// Path of the offending file, or of the directory when the directory itself is the problem.
    package var file: String
    /// The key path, e.g. `UIBackgroundModes[1]` or `CFBundleIdentifier`; nil for whole-file problems.
    package var keyPath: String?
    /// What was found, e.g. `string "thirty"`, `real -3.0`, `nothing`; nil when there is nothing useful to say.
    package var found: String?
    /// What was expected, e.g. `a finite number of seconds >= 0 (real or integer)`.
    package var expected: String

    init(code: Code, file: String, keyPath: String?, found: String?, expected: String) {
        self.code = code
        self.file = file
        self.keyPath = keyPath
        self.found = found
        self.expected = expected
    }

    /// `<file>: <keyPath>: expected <expected>, found <found>`; the key path and the found part are left out
    /// when they are nil.
    package var description: String {
        var text = self.file + ": "
        if let keyPath = self.keyPath { text += keyPath + ": " }
        text += "expected " + self.expected
        if let found = self.found { text += ", found " + found }
        return text
    }
}
