#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The directory of a file the daemon writes (an app's output file, the process state file, the run history),
/// opened by a walk from `/` one component at a time, each with `O_PATH | O_DIRECTORY | O_NOFOLLOW` relative to
/// the one before: no symbolic link is followed in any component (a link planted in place of a directory makes the
/// walk fail, it is never resolved). Output files are then opened, rotated and removed relative to the descriptor
/// (`openat`, `renameat`, `unlinkat`), so a directory swapped after the walk changes nothing.
///
/// Every directory on the way must belong to root or to the daemon's user; the file's own directory must also not
/// be writable by any other user (not by others, and by its group only when that group is the daemon's). A
/// directory above it may be writable by others when it is sticky (`/tmp`): there another user can add entries but
/// cannot rename or remove the ones it does not own. So once a walk succeeds, no other user can change what the
/// path leads to, and the state and history files, which are opened by path, are as safe as the output files.
/// Anything else is refused with an error naming the directory and the reason (`LogDirectoryError`).
///
/// Not thread-safe; the descriptor is closed by `close()` (or deinit).
package final class LogDirectory {
    /// The directory's absolute path, as configured.
    let path: String
    /// `O_PATH` descriptor of the directory.
    let fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { _ = Glibc.close(self.fd) }

    /// Opens the directory of `file` (an absolute path).
    static func open(containing file: String) throws(LogDirectoryError) -> (LogDirectory, name: String) {
        guard file.hasPrefix("/"), let slash = file.lastIndex(of: "/") else {
            throw LogDirectoryError(path: file, reason: "is not an absolute path")
        }
        let name = String(file[file.index(after: slash)...])
        guard !name.isEmpty, name != ".", name != ".." else {
            throw LogDirectoryError(path: file, reason: "does not name a file")
        }
        let directory = slash == file.startIndex ? "/" : String(file[..<slash])
        return (try Self.open(directory), name)
    }

    /// Walks to `directory` (absolute) and checks every component. With `mode`, a missing component is created
    /// (`mkdirat` with `mode`, relative to the checked directory before it) and then opened and checked as any
    /// other: nothing is ever created through a symbolic link or in a directory another user may change.
    package static func open(
        _ directory: String,
        creatingWith mode: mode_t? = nil
    ) throws(LogDirectoryError) -> LogDirectory {
        let flags = Self.openPath | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        var fd = Glibc.open("/", flags)
        guard fd >= 0 else { throw LogDirectoryError(path: "/", reason: "cannot be opened: \(Self.errorText())") }
        var walked = ""
        let components = directory.split(separator: "/")
        do throws(LogDirectoryError) {
            try Self.check(fd, path: "/", isLast: components.isEmpty)
            for (index, component) in components.enumerated() {
                walked += "/" + component
                guard component != ".", component != ".." else {
                    throw LogDirectoryError(path: walked, reason: "is a relative component (. or ..)")
                }
                var next = openat(fd, String(component), flags)
                if next < 0, errno == ENOENT, let mode {
                    // EEXIST: made meanwhile; the openat below refuses it if it is not a directory.
                    if mkdirat(fd, String(component), mode) != 0 && errno != EEXIST {
                        throw LogDirectoryError(path: walked, reason: "cannot be created: \(Self.errorText())")
                    }
                    next = openat(fd, String(component), flags)
                }
                if next < 0 {
                    let code = errno
                    throw LogDirectoryError(path: walked, reason: Self.walkFailure(fd, String(component), code))
                }
                _ = Glibc.close(fd)
                fd = next
                try Self.check(fd, path: walked, isLast: index == components.count - 1)
            }
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
        return LogDirectory(path: directory, fd: fd)
    }

    /// Why `openat(parent, component)` failed: a symbolic link is named as such.
    private static func walkFailure(_ parent: Int32, _ component: String, _ code: Int32) -> String {
        var info = stat()
        if fstatat(parent, component, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFLNK {
            return "is a symbolic link (no link is followed in a path the daemon writes under)"
        }
        return "cannot be opened as a directory: \(String(cString: strerror(code)))"
    }

    /// Refuses a directory that another user owns or may write to (see the type's comment).
    private static func check(_ fd: Int32, path: String, isLast: Bool) throws(LogDirectoryError) {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw LogDirectoryError(path: path, reason: "cannot be examined: \(Self.errorText())")
        }
        let user = geteuid()
        guard info.st_uid == 0 || info.st_uid == user else {
            throw LogDirectoryError(
                path: path,
                reason: "belongs to uid \(info.st_uid), neither root nor the daemon's user \(user)"
            )
        }
        let writableByOthers = info.st_mode & S_IWOTH != 0
        let writableByGroup = info.st_mode & S_IWGRP != 0 && info.st_gid != getegid()
        guard writableByOthers || writableByGroup else { return }
        let who = writableByOthers ? "every user" : "group \(info.st_gid)"
        if isLast {
            throw LogDirectoryError(
                path: path,
                reason: "is writable by \(who) (a directory the daemon writes files in must not be)"
            )
        }
        guard info.st_mode & S_ISVTX != 0 else {
            throw LogDirectoryError(path: path, reason: "is writable by \(who) and not sticky")
        }
    }

    /// `O_PATH` (Linux's value on every architecture Swift runs on): Glibc's module shows it only under
    /// `_GNU_SOURCE`.
    private static let openPath: Int32 = 0o10_000_000

    private static func errorText() -> String { String(cString: strerror(errno)) }
}

/// A path the daemon would write under that is refused: `path` is the component at fault.
package struct LogDirectoryError: Error, CustomStringConvertible {
    package var path: String
    package var reason: String

    package var description: String { "\(self.path) \(self.reason)" }
}
