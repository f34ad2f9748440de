import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Fresh paths under the temporary directory, unique per call; the caller removes what it made.
enum TemporaryPaths {
    /// A path for a file (not created).
    static func file() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("runway-\(UUID().uuidString)").path
    }

    /// A path for a program or script (not created).
    static func program() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("runway-spawn-\(UUID().uuidString)").path
    }

    /// A new directory, mode 0700.
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("runway-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        chmod(path, 0o700)
        return path
    }
}
