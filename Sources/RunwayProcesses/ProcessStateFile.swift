#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The state file on disk (`ProcessOptions.stateFile`): read once at start, replaced whole (written to a
/// temporary file beside it, then renamed over it) whenever the tracked processes change, removed at a clean
/// close. A file or directory that another user could have written is refused: a forged list would make
/// Runway kill processes of the forger's choosing. Small synchronous writes on the loop thread, meant for a
/// runtime directory on tmpfs (`/run`, `$XDG_RUNTIME_DIR`); nothing here calls `fsync`, because a file that
/// survives a power loss is from another boot and is ignored (its boot id differs).
struct ProcessStateFile: Hashable, Sendable {
    let path: String

    var directory: String {
        guard let slash = self.path.lastIndex(of: "/") else { return "." }
        return slash == self.path.startIndex ? "/" : String(self.path[..<slash])
    }

    /// Creates the directory (mode 0700, parents included) when missing, then checks that it is a directory
    /// owned by this user (or root) that no one else may write, reached without a symbolic link through
    /// directories no other user may change (`LogDirectory`).
    ///
    /// - Returns: nil, or why the file cannot be kept there.
    func prepareDirectory() -> String? {
        // Missing components are created 0700 beneath the walked ones: no symbolic link in any component, and no
        // directory on the way another user may change, before anything is created.
        var walkProblem: String?
        do { _ = try LogDirectory.open(self.directory, creatingWith: 0o700) } catch { walkProblem = error.description }
        var info = stat()
        guard lstat(self.directory, &info) == 0 else {
            return walkProblem ?? "cannot read \(self.directory): \(SystemFiles.describe(errno))"
        }
        return PrivateFile.directoryProblem(self.directory, info: info) ?? walkProblem
    }

    /// The file's snapshot; nil when there is no file. Fails when it is not a regular file owned by this user,
    /// is writable by others, or does not parse.
    func read() -> Result<ProcessStateSnapshot?, StateFileError> {
        let fd: Int32
        switch PrivateFile.openTrusted(self.path) {
        case .success(nil): return .success(nil)
        case .success(let opened?): fd = opened.fd
        case .failure(.cannotOpen(let code)): return .failure(.init("cannot open: \(SystemFiles.describe(code))"))
        case .failure(.notRegular): return .failure(.init("not a file"))
        case .failure(.untrusted(let uid)): return .failure(.init("owned by uid \(uid) or writable by others"))
        }
        defer { close(fd) }
        guard let text = SystemFiles.read("/proc/self/fd/\(fd)", limitBytes: 16 << 20) else {
            return .failure(.init("cannot read"))
        }
        guard let snapshot = ProcessStateSnapshot.decode(text) else { return .failure(.init("not a state file")) }
        return .success(snapshot)
    }

    /// Replaces the file with `snapshot` (mode 0600): a temporary file in the same directory, renamed over it.
    ///
    /// - Returns: 0, or the errno of the failing call.
    @discardableResult
    func write(_ snapshot: ProcessStateSnapshot) -> Int32 {
        PrivateFile.replace(self.path, with: Array(snapshot.encoded().utf8))
    }

    /// Removes the file (a clean close left nothing to end).
    func remove() { _ = unlink(self.path) }
}

/// Why a state file was not used; logged, never fatal.
struct StateFileError: Error, Hashable, CustomStringConvertible {
    var reason: String
    init(_ reason: String) { self.reason = reason }
    var description: String { self.reason }
}
