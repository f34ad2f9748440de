#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An app cgroup's subtree: the bound on what an app may create below it, and its removal, deepest directories
/// first (rmdir fails on a cgroup that has children or processes). Loop thread only.
extension AppCgroup {
    /// Most cgroups an app may create below its own (`cgroup.max.descendants`) and how deep
    /// (`cgroup.max.depth`): enough for a program that sorts its own workers into a few groups, too few to
    /// exhaust the kernel's memory. An app that runs as a user of its own cannot create any (its cgroup's
    /// directory is the daemon's); these bind an app that runs as the daemon's user.
    static let descendantLimit = 16
    static let depthLimit = 2
    /// Deepest subtree `removeTree` walks: cgroups made before `depthLimit` applied (by an older daemon) may go
    /// deeper; the kernel's own bound on nesting is far above what anything here creates.
    static let walkDepthLimit = 32

    /// Sets `cgroup.max.descendants` and `cgroup.max.depth`. Returns 0 or the errno of the first failed write.
    func limitDescendants() -> Int32 {
        let descendants = self.write("\(Self.descendantLimit)", "cgroup.max.descendants")
        let depth = self.write("\(Self.depthLimit)", "cgroup.max.depth")
        return descendants != 0 ? descendants : depth
    }

    /// The cgroups below this one, deepest first (each before its parent).
    var descendants: [String] { Self.subdirectories(of: self.path, depth: 0) }

    /// Removes the cgroups an app created below its own, deepest first; those that still hold processes stay
    /// (rmdir fails with EBUSY). Returns how many remain.
    @discardableResult
    func removeDescendants() -> Int {
        self.descendants.reduce(0) { remaining, path in remaining + (rmdir(path) == 0 ? 0 : 1) }
    }

    /// Kills everything in the subtree (`cgroup.kill` reaches every descendant; without it each cgroup's pids are
    /// killed), thaws it, waits up to `waitMilliseconds` for the killed processes to leave, and removes every
    /// directory, deepest first, this one last. Returns 0 or the errno of the last failed rmdir.
    @discardableResult
    func removeTree(waitMilliseconds: Int = 1_000) -> Int32 {
        self.killAll()
        for path in self.descendants {
            for pid in AppCgroup(path: path).processes { _ = kill(pid, SIGKILL) }
        }
        _ = self.setFrozen(false)
        var waited = 0
        while self.eventFlags?.populated == true && waited < waitMilliseconds {
            usleep(1_000)
            waited += 1
        }
        var status: Int32 = 0
        for path in self.descendants + [self.path] where rmdir(path) != 0 && errno != ENOENT {
            status = errno
        }
        return status
    }

    /// Subdirectories of `path`, recursively, deepest first; at most `walkDepthLimit` levels.
    private static func subdirectories(of path: String, depth: Int) -> [String] {
        guard depth < Self.walkDepthLimit else { return [] }
        var result: [String] = []
        for name in SystemFiles.entries(of: path) {
            let child = "\(path)/\(name)"
            var info = stat()
            guard lstat(child, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { continue }
            result += Self.subdirectories(of: child, depth: depth + 1)
            result.append(child)
        }
        return result
    }
}
