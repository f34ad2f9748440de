#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The `runway.<pid>` directories a daemon that died without cleaning up left under a cgroup directory (v2 or any
/// v1 hierarchy): its pid is gone, or is a zombie its parent has not reaped. This process's own is never one.
enum StaleCgroupDirectories {
    /// Each stale directory under `own` with the directories directly below it (one per app).
    static func under(_ own: String) -> [(path: String, children: [String])] {
        SystemFiles.entries(of: own).compactMap { name in
            guard name.hasPrefix("runway."), let pid = Int32(name.dropFirst("runway.".count)), pid != getpid(),
                (kill(pid, 0) != 0 && errno == ESRCH) || ProcFS.stat(pid)?.state == "Z"
            else { return nil }
            let path = "\(own == "/" ? "" : own)/\(name)"
            let children = SystemFiles.entries(of: path).map { "\(path)/\($0)" }.filter { child in
                var info = stat()
                return stat(child, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
            }
            return (path, children)
        }
    }
}
