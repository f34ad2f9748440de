import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What is at the socket's path when `connect` failed, so that the error says what refused rather than a guess.
extension ControlClient {
    /// Why nothing answered at `path` (ENOENT, ECONNREFUSED): nothing there, something that is not a socket, or a
    /// socket no process listens on.
    static func nothingListening(at path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return "no daemon is listening on \(path): nothing is there (start one with `runway run`)"
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFSOCK else {
            return "no daemon is listening on \(path): it is \(Self.describe(kind)), not a socket"
        }
        return "no daemon is listening on \(path): the socket is there but no process listens on it (start one "
            + "with `runway run`)"
    }

    /// Why `connect` was refused (EACCES, EPERM): the first directory of the path this user cannot search, or the
    /// socket's mode and owner when this user may not write to it.
    static func permissionDenied(at path: String) -> String {
        let me = "this user (uid \(getuid()))"
        var directory = ""
        for component in path.split(separator: "/").dropLast() {
            directory += "/" + component
            if access(directory, X_OK) != 0 {
                return "permission denied on \(path): \(me) cannot search the directory \(directory) "
                    + "(\(Self.modeAndOwner(directory)))"
            }
        }
        if access(path, W_OK) != 0 {
            return "permission denied on \(path): \(me) may not write to the socket (\(Self.modeAndOwner(path)); "
                + "the daemon makes it mode 0600, for its user and root)"
        }
        return "permission denied on \(path) (\(Self.modeAndOwner(path))): a security module refused the connection"
    }

    /// `mode 0600, owner uid 0`, or why it cannot be read.
    private static func modeAndOwner(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "cannot be read: \(String(cString: strerror(errno)))" }
        return "mode " + String(info.st_mode & 0o7777, radix: 8).leftPadded(to: 4) + ", owner uid \(info.st_uid)"
    }

    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFREG: return "a regular file"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        default: return "a file of type \(String(kind, radix: 8))"
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - self.count)) + self
    }
}
