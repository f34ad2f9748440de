import Foundation
import RunwayCore

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// Apps whose descendants leave the app's process group and session, and checks that they did.
enum Escapees {
    /// An app whose grandchild double-forks out of the app's session: the middle process calls setsid and
    /// starts a shell that becomes `sleep 1000`, then exits, so the sleep is re-parented to this process (a
    /// child subreaper). The sleep appends its pid to `pidFile` once it ignores SIGTERM (`ignoresTERM`).
    static func escaper(_ id: AppID, pidFile: String, ignoresTERM: Bool = true) -> AppDescriptor {
        let trap = ignoresTERM ? "trap \\\"\\\" TERM; " : ""
        let inner = "sh -c '\(trap)echo \\$\\$ >> \(pidFile); exec sleep 1000' &"
        let script = "trap 'exit 0' TERM; setsid sh -c \"\(inner)\" & " + ProcessTestSupport.idleLoop
        return ProcessTestSupport.shell(id, script)
    }

    /// The pids appended to `file` so far (waits until there are `count`).
    static func pids(in file: String, count: Int = 1) async -> [Int32] {
        var pids: [Int32] = []
        _ = await eventually {
            pids =
                (try? String(contentsOfFile: file, encoding: .utf8))?.split(separator: "\n").compactMap {
                    Int32($0)
                } ?? []
            return pids.count >= count
        }
        return pids
    }

    /// The escapee left the app's session and was re-parented here.
    static func hasEscaped(_ pid: Int32, from app: Int32) -> Bool {
        guard let stat = ProcFS.stat(pid) else { return false }
        return stat.session != app && stat.parent == getpid()
    }
}
