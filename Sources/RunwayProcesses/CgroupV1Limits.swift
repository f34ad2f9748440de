import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Per-app cgroup v1 directories for the ceilings a hybrid host offers only on v1 (`memory`, `pids`, `cpu` bound to
/// v1 hierarchies, cgroup v2 with none of them): `<v1 mount><daemon's path>/runway.<pid>/<bundle id>` in each
/// hierarchy a ceiling needs. The child joins them by writing their `cgroup.procs` before its exec (spawn.h), so
/// everything it starts is counted from its first instruction; the suspension mechanism is unaffected (the v2
/// freezer, or signals).
///
/// Directories are created at the first launch that needs them and kept across runs; `close()` removes them. A
/// `runway.<pid>` left by a dead daemon is swept (its processes killed, its directories removed) in every hierarchy
/// Runway uses when the supervisor starts (`removeStaleDirectories()`), whether or not an app asks for a ceiling,
/// and again before the first directory is made in a hierarchy, as the v2 one is
/// (`CgroupHierarchy.removeStaleDirectories`). Loop thread only.
final class CgroupV1Limits {
    /// Runway's directory in each v1 hierarchy, by controller, or why there is none: found once, at the first need.
    private var directories: [String: Result<String, CgroupUnavailable>] = [:]
    /// Every leaf made, in order, for `close()`.
    private var leaves: [String] = []
    /// `/proc/self/mountinfo` and `/proc/self/cgroup`, read at the first need unless given.
    private var procFileTexts: (mountinfo: String, membership: String)?

    /// Leaves in the v1 hierarchies of this process; with `mountinfo` and `membership`, in those the texts
    /// describe instead (a host without cgroup v1 is `("", "")`).
    init(mountinfo: String? = nil, membership: String? = nil) {
        if let mountinfo, let membership { self.procFileTexts = (mountinfo, membership) }
    }

    /// The v1 controllers whose hierarchies Runway makes leaves in (`AppCgroupLimits`' ceilings).
    static let controllers = ["memory", "pids", "cpu"]

    /// Sweeps the `runway.<pid>` directories of dead daemons in each hierarchy of `controllers` this process is in
    /// (read-write): what runs in their leaves is killed, the leaves and directories removed.
    func removeStaleDirectories() {
        let files = self.procFiles()
        var swept: Set<String> = []
        for controller in Self.controllers {
            guard let own = Self.locate(controller, mountinfo: files.mountinfo, membership: files.membership),
                swept.insert(own).inserted
            else { continue }
            Self.removeStaleDirectories(in: own)
        }
    }

    /// `/proc/self/mountinfo` and `/proc/self/cgroup`, read at the first call unless given.
    private func procFiles() -> (mountinfo: String, membership: String) {
        if let known = self.procFileTexts { return known }
        let files = (
            SystemFiles.read("/proc/self/mountinfo", limitBytes: 1 << 20) ?? "",
            SystemFiles.read("/proc/self/cgroup") ?? ""
        )
        self.procFileTexts = files
        return files
    }

    /// The app's leaf in `controller`'s v1 hierarchy with `file` set to `value`, created if needed.
    ///
    /// - Returns: The leaf's path (for the child to join), or why the controller cannot be used there.
    func apply(controller: String, file: String, value: String, app: AppID) -> Result<String, CgroupUnavailable> {
        self.directory(for: controller).flatMap { directory in
            let safe = String(app.bundleIdentifier.map { $0 == "/" || $0 == "\0" ? "_" : $0 })
            let leaf = "\(directory)/\(safe)"
            var made = mkdir(leaf, 0o755) == 0
            if !made, errno == ENOENT {
                // Runway's directory was removed since it was made (another supervisor of this process closed).
                _ = mkdir(directory, 0o755)
                made = mkdir(leaf, 0o755) == 0
            }
            if !made && errno != EEXIST {
                let code = errno
                return .failure(CgroupUnavailable(reason: "cannot create \(leaf): \(SystemFiles.describe(code))"))
            }
            if !self.leaves.contains(leaf) { self.leaves.append(leaf) }
            let status = SystemFiles.write(value, to: "\(leaf)/\(file)")
            guard status == 0 else {
                return .failure(
                    CgroupUnavailable(
                        reason: "cannot write \(value) to \(leaf)/\(file): \(SystemFiles.describe(status))"
                    )
                )
            }
            return .success(leaf)
        }
    }

    /// Removes the leaves, then Runway's directories. Called once every app is gone (P4): what is still in a leaf
    /// is an app's leftover, killed first; a leaf that stays busy is left for the next daemon's sweep.
    func close() {
        for leaf in self.leaves.reversed() { Self.killAndRemove(leaf) }
        self.leaves = []
        for case .success(let directory) in self.directories.values { _ = rmdir(directory) }
        self.directories = [:]
    }

    /// Runway's `runway.<pid>` in `controller`'s v1 hierarchy, created (after sweeping a dead daemon's) at the first
    /// call.
    private func directory(for controller: String) -> Result<String, CgroupUnavailable> {
        if let known = self.directories[controller] { return known }
        let files = self.procFiles()
        let found: Result<String, CgroupUnavailable>
        if let own = Self.locate(controller, mountinfo: files.mountinfo, membership: files.membership) {
            Self.removeStaleDirectories(in: own)
            let directory = "\(own == "/" ? "" : own)/runway.\(getpid())"
            if mkdir(directory, 0o755) == 0 || errno == EEXIST {
                found = .success(directory)
            } else {
                let code = errno
                found = .failure(CgroupUnavailable(reason: "cannot create \(directory): \(SystemFiles.describe(code))"))
            }
        } else {
            found = .failure(CgroupUnavailable(reason: "no cgroup v1 hierarchy has the \(controller) controller"))
        }
        self.directories[controller] = found
        return found
    }

    /// The daemon's own directory in the read-write v1 hierarchy that has `controller`, e.g.
    /// `/sys/fs/cgroup/memory/system.slice/runway.service`; nil when there is none. Pure: parses the two files.
    static func locate(_ controller: String, mountinfo: String, membership: String) -> String? {
        // /proc/self/cgroup: `ID:CONTROLLERS:PATH`, e.g. `4:memory:/system.slice/runway.service`.
        var path: String?
        for line in membership.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[1].split(separator: ",").contains(Substring(controller)) {
                path = String(fields[2])
                break
            }
        }
        guard let path else { return nil }
        for line in mountinfo.split(separator: "\n") {
            // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
            let parts = line.split(separator: " - ", maxSplits: 1)
            let tail = parts.count == 2 ? parts[1].split(separator: " ") : []
            guard tail.count >= 3, tail[0] == "cgroup", tail[2].split(separator: ",").contains(Substring(controller))
            else { continue }
            let fields = parts[0].split(separator: " ")
            guard fields.count >= 6, fields[5].split(separator: ",").contains("rw") else { continue }
            let root = String(fields[3])
            var relative = path
            if root != "/" {
                guard relative.hasPrefix(root) else { continue }
                relative = String(relative.dropFirst(root.count))
            }
            let mountPoint = CgroupHierarchy.unescape(String(fields[4]))
            let directory = mountPoint + (relative.hasPrefix("/") || relative.isEmpty ? relative : "/" + relative)
            return directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        }
        return nil
    }

    /// Removes the `runway.<pid>` directories under `own` whose daemon is gone (as `CgroupHierarchy` does for v2):
    /// what still runs in their leaves is killed first.
    static func removeStaleDirectories(in own: String) {
        for (directory, leaves) in StaleCgroupDirectories.under(own) {
            for leaf in leaves { Self.killAndRemove(leaf) }
            _ = rmdir(directory)
        }
    }

    /// SIGKILLs what is in `leaf` and removes it, waiting up to 100 ms for the killed processes to leave it (a
    /// process leaves its cgroup as it exits, a moment after the signal).
    static func killAndRemove(_ leaf: String) {
        let pids = (SystemFiles.read("\(leaf)/cgroup.procs") ?? "").split(separator: "\n").compactMap { Int32($0) }
        for pid in pids { _ = kill(pid, SIGKILL) }
        for _ in 0..<100 {
            if rmdir(leaf) == 0 || errno != EBUSY { return }
            usleep(1_000)
        }
    }
}
