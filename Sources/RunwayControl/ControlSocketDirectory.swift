// The directory of the default control socket (K1; Docs/Security.md).
//
// The default socket (`DaemonSettings.defaultControlSocketPath`) is always in a directory of its own:
// `/run/runway`, `$XDG_RUNTIME_DIR/runway` or `/tmp/runway-<uid>`. The daemon creates that directory with mode 0700
// and serves only when it is a real directory (not a symbolic link: lstat) owned by the daemon's user, with mode
// 0700. In world-writable `/tmp` another user could otherwise take the path first: create the directory (owned by
// them, or open to all) or a symbolic link to a place they control, and so stop the daemon from starting or
// put their own socket where the CLI looks. `/tmp` is sticky, so once the directory is ours nobody else can
// rename or remove it. A path set with `ControlSocket` or `--socket` is the operator's choice and is not checked
// here; the CLI's SO_PEERCRED check (`ControlClient`) protects every path.

import Runway
import RunwayConfig
import RunwayCore

#if canImport(Glibc)
import Glibc
#endif

/// Creates and checks the private directory of the default control socket. Stateless; any thread; blocking
/// (mkdir, chmod, lstat).
package enum ControlSocketDirectory {
    /// Creates `directory` with mode 0700 when it does not exist (its parent must: `/run`, `$XDG_RUNTIME_DIR` or
    /// `/tmp`), then checks that it is a directory, not a symbolic link, owned by `uid`, with mode 0700.
    ///
    /// - Parameters:
    ///   - directory: The socket's directory, absolute.
    ///   - uid: The user the daemon runs as; defaults to the real uid of this process.
    /// - Throws: `ControlSocketDirectoryError` naming the directory and what is wrong with it.
    package static func prepare(
        _ directory: String,
        uid: UInt32 = UInt32(getuid())
    ) throws(ControlSocketDirectoryError) {
        if mkdir(directory, 0o700) == 0 {
            // The umask can only have removed bits; the directory is ours, so set exactly 0700.
            _ = chmod(directory, 0o700)
        } else if errno != EEXIST {
            let reason = String(cString: strerror(errno))
            throw ControlSocketDirectoryError(directory: directory, uid: uid, problem: "cannot be created (\(reason))")
        }
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            throw ControlSocketDirectoryError(directory: directory, uid: uid, problem: "cannot be examined (\(reason))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            let kind = describeFileType(mode: UInt32(info.st_mode))
            throw ControlSocketDirectoryError(directory: directory, uid: uid, problem: "is \(kind), not a directory")
        }
        guard info.st_uid == uid else {
            throw ControlSocketDirectoryError(directory: directory, uid: uid, problem: "is owned by uid \(info.st_uid)")
        }
        let mode = info.st_mode & 0o777
        guard mode == 0o700 else {
            throw ControlSocketDirectoryError(
                directory: directory,
                uid: uid,
                problem: "has mode 0" + String(mode, radix: 8)
            )
        }
    }
}

/// Why the default control socket's directory cannot be used. A value; any thread.
package struct ControlSocketDirectoryError: Error, CustomStringConvertible {
    /// The directory.
    package var directory: String
    /// The user the daemon runs as, who must own it.
    package var uid: UInt32
    /// What is wrong, e.g. `has mode 0777`, `is owned by uid 65534`, `is a symbolic link, not a directory`.
    package var problem: String

    package var description: String {
        "control socket directory \(self.directory) \(self.problem); it must be a directory (not a symbolic link) "
            + "owned by uid \(self.uid), the daemon's user, with mode 0700, so that no other user can take or "
            + "reach the socket: remove it (the daemon then creates it) or set ControlSocket (or --socket)"
    }
}
