#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The rules for a file the daemon keeps for itself and trusts on reading (the process state file, the run
/// history): it lives in a directory of this user (or root) that no one else may write, it is read only when it
/// is a regular file of this user that no one else may write, and it is replaced whole, through a temporary file
/// beside it renamed over it. Any thread; plain system calls, nothing cached.
package enum PrivateFile {
    /// Why an opened file is not trusted.
    package enum ReadProblem: Error, Hashable, Sendable {
        /// `open` failed with this errno (not ENOENT: a missing file is no problem).
        case cannotOpen(Int32)
        /// Not a regular file (a FIFO, a directory, a device).
        case notRegular
        /// Owned by this uid, not this user's, or writable by group or others.
        case untrusted(uid: uid_t)
    }

    /// Why `directory`, as `lstat` describes it in `info`, cannot hold a trusted file, or nil: not a directory,
    /// owned by another user than this one or root, or writable by group or others.
    package static func directoryProblem(_ directory: String, info: stat) -> String? {
        guard info.st_mode & S_IFMT == S_IFDIR else { return "\(directory) is not a directory" }
        guard info.st_uid == geteuid() || info.st_uid == 0 else {
            return "\(directory) belongs to uid \(info.st_uid), not to this user"
        }
        guard info.st_mode & 0o022 == 0 else { return "\(directory) is writable by group or others" }
        return nil
    }

    /// Opens `path` for reading without following a symbolic link or blocking on a FIFO, and checks it.
    ///
    /// - Returns: The descriptor (close-on-exec; the caller closes it) and the file's size, nil when there is no
    ///   file, or why it is not trusted (the descriptor is closed then).
    package static func openTrusted(_ path: String) -> Result<(fd: Int32, size: Int)?, ReadProblem> {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT ? .success(nil) : .failure(.cannotOpen(errno)) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return .failure(.notRegular)
        }
        guard info.st_uid == geteuid(), info.st_mode & 0o022 == 0 else {
            close(fd)
            return .failure(.untrusted(uid: info.st_uid))
        }
        return .success((fd, Int(info.st_size)))
    }

    /// Replaces `path` with `bytes` (mode 0600): written to `<path>.<pid>.tmp` (never through a symbolic link),
    /// then renamed over it; the temporary file is removed on failure.
    ///
    /// - Returns: 0, or the errno of the failing call.
    package static func replace(_ path: String, with bytes: [UInt8]) -> Int32 {
        let temporary = "\(path).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return errno }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                write(fd, raw.baseAddress! + written, raw.count - written)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let code = count < 0 ? errno : EIO
                close(fd)
                unlink(temporary)
                return code
            }
            written += count
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            return code
        }
        return 0
    }
}
