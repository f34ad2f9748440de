import Foundation
import RunwayCore

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// A helper program started by the test itself (not by a scheduler), and its exit.
enum ChildProgram {
    /// Starts `path` with `arguments` (posix_spawn: Foundation's Process learns of an exit only once every copy of
    /// a socket it made is closed, and a daemon another test starts at that instant may inherit one).
    static func spawn(_ path: String, _ arguments: [String]) throws -> pid_t {
        var pid: pid_t = 0
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let status = posix_spawn(&pid, path, nil, nil, argv, environ)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
        return pid
    }

    /// Waits for `pid` (a child of this process) to exit and reaps it: its exit status, or 128 + its signal, -1 when
    /// someone else reaped it; nil after `timeout`.
    static func exitStatus(_ pid: pid_t, timeout: Duration = .seconds(10)) async -> Int32? {
        var result: Int32?
        _ = await eventually(timeout: timeout) {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped < 0 && errno == ECHILD {
                // Reaped already, by a supervisor's zombie sweep (a test beside this one): gone, status unknown.
                result = -1
                return true
            }
            guard reaped == pid else { return false }
            let signal = status & 0x7f
            result = signal == 0 ? (status >> 8) & 0xff : 128 + signal
            return true
        }
        return result
    }
}
