import RunwayLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The app cgroups `cgroup.kill` was written to, which a child must not be cloned into (CLONE_INTO_CGROUP):
/// Linux compares the kill counter of the *parent's* cgroup, read before the target is known, with the
/// target's after the fork, so a child cloned into a cgroup that was ever killed is SIGKILLed at birth (seen on
/// 6.18). Such a cgroup is re-created (rmdir and mkdir: a new cgroup has a counter of zero) before the next
/// spawn into it, or, while it still holds dying processes, the child joins it by writing `cgroup.procs` before
/// it execs.
///
/// Threading: any thread; one lock (`AppCgroup.killAll` runs on the supervisors' loops).
enum KilledCgroups {
    private static let paths = RunwayLock<Set<String>>([])

    /// Records that `cgroup.kill` was written to `path`.
    static func killed(_ path: String) {
        _ = Self.paths.withLock { $0.insert(path) }
    }

    /// Prepares `path` for a spawn: true when a child can be cloned into it (never killed, or re-created now),
    /// false when it must join by writing `cgroup.procs`.
    static func prepareForClone(_ path: String) -> Bool {
        Self.paths.withLock { paths in
            guard paths.contains(path) else { return true }
            guard rmdir(path) == 0, mkdir(path, 0o755) == 0 else { return false }
            // A new cgroup has no bound of its own: the app cgroup's are set again.
            _ = AppCgroup(path: path).limitDescendants()
            paths.remove(path)
            return true
        }
    }
}
