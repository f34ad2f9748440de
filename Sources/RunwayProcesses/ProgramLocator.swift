#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Finds a process app's program and working directory (C1: `ProgramArguments[0]`, `WorkingDirectory`).
///
/// Relative paths are taken against `ProcessOptions.baseDirectory` (else the current directory); a bare
/// program name is searched in `ProcessOptions.searchDirectories`, then `PATH`. Reads the file system and
/// this process's environment when asked (`access(2)`, `getcwd`, `PATH`), so a value is made for one launch.
struct ProgramLocator {
    /// Base of relative paths; nil for the current directory.
    let baseDirectory: String?
    /// Searched before `PATH` for a program without a `/`.
    let searchDirectories: [String]

    init(options: ProcessOptions) {
        self.baseDirectory = options.baseDirectory
        self.searchDirectories = options.searchDirectories
    }

    /// `path` if absolute, else `path` under the base directory.
    func resolvePath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        let base = self.baseDirectory ?? Self.currentDirectory()
        return base + "/" + path
    }

    /// An absolute path, a relative path with a `/` (against the base directory), or a bare name searched in
    /// `searchDirectories` then `PATH`. Nil when no executable file is found.
    func executable(_ name: String) -> String? {
        if Self.hasSlash(name) {
            let path = self.resolvePath(name)
            return access(path, X_OK) == 0 ? path : nil
        }
        for directory in self.searchPath() where access("\(directory)/\(name)", X_OK) == 0 {
            return "\(directory)/\(name)"
        }
        return nil
    }

    /// Where `executable(name)` looked, for the error that says it found nothing.
    func describeSearch(_ name: String) -> String {
        Self.hasSlash(name) ? self.resolvePath(name) : self.searchPath().joined(separator: ":")
    }

    private func searchPath() -> [String] {
        let path = (getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin")
        return self.searchDirectories + path.split(separator: ":").map(String.init)
    }

    /// True when `name` holds a `/`: a byte search, where `String.contains` with a string argument goes through
    /// Foundation's locale-aware search on every launch.
    static func hasSlash(_ name: String) -> Bool { name.utf8.contains(UInt8(ascii: "/")) }

    /// This process's working directory, or `.` when it cannot be read.
    static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        return getcwd(&buffer, buffer.count).map { String(cString: $0) } ?? "."
    }
}
