#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where this process sits in the cgroup v2 hierarchy, and a directory of Runway's own under it for one
/// cgroup per process app (P1).
///
/// Discovery reads `/proc/self/mountinfo` for a `cgroup2` mount (it is not always `/sys/fs/cgroup`: hybrid
/// hosts mount v2 at `/sys/fs/cgroup/unified`) and `/proc/self/cgroup` for this process's v2 path (`0::/...`).
/// The freezer is usable when that mount is read-write and Runway can create its directory there, which needs
/// root or a delegated subtree.
struct CgroupHierarchy: Hashable {
    /// The directory of this process's own cgroup, e.g. `/sys/fs/cgroup/unified/` or `.../user.slice/x.scope`.
    var ownDirectory: String

    /// Finds the cgroup v2 directory of this process, or says why there is none.
    static func discover() -> Result<CgroupHierarchy, CgroupUnavailable> {
        guard let mountinfo = SystemFiles.read("/proc/self/mountinfo", limitBytes: 1 << 20) else {
            return .failure(CgroupUnavailable(reason: "cannot read /proc/self/mountinfo"))
        }
        guard let membership = SystemFiles.read("/proc/self/cgroup") else {
            return .failure(CgroupUnavailable(reason: "cannot read /proc/self/cgroup"))
        }
        return Self.locate(mountinfo: mountinfo, membership: membership)
    }

    /// The pure part of `discover()`: parses the two files' texts.
    static func locate(mountinfo: String, membership: String) -> Result<CgroupHierarchy, CgroupUnavailable> {
        guard let path = membership.split(separator: "\n").first(where: { $0.hasPrefix("0::") })?.dropFirst(3) else {
            return .failure(
                CgroupUnavailable(
                    reason: "this process is in no cgroup v2 hierarchy (/proc/self/cgroup has no 0:: line)"
                )
            )
        }
        for line in mountinfo.split(separator: "\n") {
            // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
            let parts = line.split(separator: " - ", maxSplits: 1)
            guard parts.count == 2, parts[1].split(separator: " ").first == "cgroup2" else { continue }
            let fields = parts[0].split(separator: " ")
            guard fields.count >= 6 else { continue }
            let root = String(fields[3])
            let mountPoint = Self.unescape(String(fields[4]))
            guard fields[5].split(separator: ",").contains("rw") else {
                return .failure(CgroupUnavailable(reason: "the cgroup2 mount at \(mountPoint) is read-only"))
            }
            var relative = String(path)
            if root != "/" {
                guard relative.hasPrefix(root) else { continue }
                relative = String(relative.dropFirst(root.count))
            }
            let directory = mountPoint + (relative.hasPrefix("/") || relative.isEmpty ? relative : "/" + relative)
            return .success(
                CgroupHierarchy(ownDirectory: directory.hasSuffix("/") ? String(directory.dropLast()) : directory)
            )
        }
        return .failure(CgroupUnavailable(reason: "no cgroup2 mount in /proc/self/mountinfo"))
    }

    /// mountinfo escapes space, tab, newline and backslash as octal (`\040`).
    static func unescape(_ field: String) -> String {
        var result = ""
        var iterator = Array(field.utf8)[...]
        var bytes: [UInt8] = []
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "\\"), iterator.count >= 3,
                let value = UInt8(String(decoding: iterator.prefix(3), as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                iterator = iterator.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        result = String(decoding: bytes, as: UTF8.self)
        return result
    }

    /// Creates (or reuses) Runway's directory `runway.<pid>` under this process's cgroup.
    ///
    /// - Returns: the directory, or why the freezer cannot be used (not root, read-only, no `cgroup.freeze`).
    func makeRunwayDirectory() -> Result<String, CgroupUnavailable> {
        self.removeStaleDirectories()
        let directory = "\(self.ownDirectory)/runway.\(getpid())"
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            let code = errno
            return .failure(CgroupUnavailable(reason: "cannot create \(directory): \(SystemFiles.describe(code))"))
        }
        guard access("\(directory)/cgroup.freeze", W_OK) == 0 else {
            _ = rmdir(directory)
            return .failure(
                CgroupUnavailable(reason: "\(directory)/cgroup.freeze is missing or not writable (kernel before 5.2?)")
            )
        }
        return .success(directory)
    }
}

extension CgroupHierarchy {
    /// Removes `runway.<pid>` directories left by a daemon that died without cleaning up (its pid is gone, or
    /// is a zombie its parent has not reaped): whatever still runs in their app cgroups and below is killed first,
    /// so nothing a dead daemon started lingers, and the cgroups its apps created are removed, deepest first.
    func removeStaleDirectories() {
        for (path, children) in StaleCgroupDirectories.under(self.ownDirectory) {
            // Each app cgroup with whatever its app created below it.
            for child in children { AppCgroup(path: child).removeTree() }
            _ = rmdir(path)
        }
    }
}

/// Why the cgroup v2 freezer cannot be used here; status and logs show the reason.
struct CgroupUnavailable: Error, Hashable, CustomStringConvertible {
    var reason: String
    var description: String { self.reason }
}

/// One app's cgroup: a leaf directory under Runway's own. Every process the app starts (grandchildren too)
/// stays in it, so freezing and killing it reaches them all. Loop thread only.
struct AppCgroup: Hashable {
    let path: String
    /// The open directory the cgroup was created in and the leaf's name there: its files are opened relative to it (no
    /// walk of the path by component on every open). Nil for a cgroup known only by its path (one left by a dead
    /// daemon).
    private let base: CgroupBase?
    private let leaf: String

    init(path: String, base: CgroupBase? = nil) {
        self.path = path
        self.base = base
        self.leaf = String(path.split(separator: "/").last ?? Substring(path))
    }

    static func == (left: AppCgroup, right: AppCgroup) -> Bool { left.path == right.path }
    func hash(into hasher: inout Hasher) { hasher.combine(self.path) }

    /// Creates the leaf `<parent>/<name>`. Returns nil (with errno) when mkdir fails. With `base` (the open
    /// `parent`), the leaf's files are opened relative to it.
    static func create(in parent: String, name: String, base: CgroupBase? = nil) -> Result<AppCgroup, CgroupUnavailable>
    {
        let safe = String(name.map { $0 == "/" || $0 == "\0" ? "_" : $0 })
        let path = "\(parent)/\(safe)"
        let base = base?.path == parent ? base : nil
        // Through the open parent when there is one: no walk of the whole cgroupfs path.
        let made = base.map { mkdirat($0.descriptor, safe, 0o755) } ?? mkdir(path, 0o755)
        if made != 0 && errno != EEXIST {
            let code = errno
            return .failure(CgroupUnavailable(reason: "cannot create \(path): \(SystemFiles.describe(code))"))
        }
        let cgroup = AppCgroup(path: path, base: base)
        // Best effort: both files exist since Linux 4.14, and without them the cgroup still works.
        _ = cgroup.limitDescendants()
        return .success(cgroup)
    }

    /// One of the cgroup's files, as `(directory, path)` for `openat`: relative to the open base directory when
    /// there is one, else absolute.
    private func file(_ name: String) -> (directory: Int32, path: String) {
        guard let base = self.base else { return (AT_FDCWD, "\(self.path)/\(name)") }
        return (base.descriptor, "\(self.leaf)/\(name)")
    }

    /// Whether a cgroup exists below this one: kernfs gives a directory a link count of 2 plus its
    /// subdirectories, so one `fstatat` relative to the base directory answers, where `cgroup.stat`'s
    /// `nr_descendants` costs an open, a read and a close. Nil when the directory cannot be read.
    var hasDescendants: Bool? { self.directoryStat().map { $0.st_nlink > 2 } }

    /// True while the cgroup's directory exists (one `fstatat` relative to the base directory): someone may remove an
    /// idle app's cgroup (an operator, a cleanup tool), and a launch then makes it again.
    var exists: Bool { self.directoryStat() != nil }

    /// The directory's `stat`, as `openFile` reaches a file: relative to the base directory, or by path when there is
    /// none or the base cannot reach it (ENOENT); nil when it cannot be read.
    private func directoryStat() -> stat? {
        var info = stat()
        let directory = self.file(".")
        if fstatat(directory.directory, directory.path, &info, 0) == 0 { return info }
        guard errno == ENOENT, self.base != nil, fstatat(AT_FDCWD, self.path, &info, 0) == 0 else { return nil }
        return info
    }

    /// Opens one of the cgroup's files with `flags` (close-on-exec added): relative to the base directory, or by
    /// path when there is none or the base cannot reach it (ENOENT). Returns the descriptor or -1.
    func openFile(_ name: String, _ flags: Int32) -> Int32 {
        let file = self.file(name)
        let descriptor = openat(file.directory, file.path, flags | O_CLOEXEC)
        guard descriptor < 0, errno == ENOENT, self.base != nil else { return descriptor }
        return open("\(self.path)/\(name)", flags | O_CLOEXEC)
    }

    /// An ENOENT through the base directory is retried by path: the directory may have been removed and made
    /// again since it was opened.
    func write(_ text: String, _ name: String) -> Int32 {
        let file = self.file(name)
        let status = SystemFiles.write(text, to: file.path, relativeTo: file.directory)
        guard status == ENOENT, self.base != nil else { return status }
        return SystemFiles.write(text, to: "\(self.path)/\(name)")
    }

    private func read(_ name: String) -> String? {
        let file = self.file(name)
        if let text = SystemFiles.read(file.path, relativeTo: file.directory) { return text }
        return self.base == nil ? nil : SystemFiles.read("\(self.path)/\(name)")
    }

    /// Moves a process into this cgroup (its later children are born here). Returns 0 or an errno.
    func add(_ pid: Int32) -> Int32 { self.write("\(pid)", "cgroup.procs") }

    /// Asks the kernel to freeze (true) or thaw (false) every task in the cgroup. Returns 0 or an errno.
    func setFrozen(_ frozen: Bool) -> Int32 { self.write(frozen ? "1" : "0", "cgroup.freeze") }

    /// `populated` and `frozen` in `cgroup.events`, read by path and parsed as a kept file's are
    /// (`AppCgroupFiles.parseEvents`); nil when the file cannot be read or does not show both as 0 or 1.
    var eventFlags: (populated: Bool, frozen: Bool)? {
        guard let text = self.read("cgroup.events") else { return nil }
        return Array(text.utf8).withUnsafeBufferPointer { AppCgroupFiles.parseEvents($0) }
    }

    /// The pids in the cgroup.
    var processes: [Int32] {
        (self.read("cgroup.procs") ?? "").split(separator: "\n").compactMap { Int32($0) }
    }

    /// SIGKILLs everything in the cgroup, frozen or not: `cgroup.kill` (Linux 5.14+), else each pid.
    ///
    /// - Returns: True when `cgroup.kill` was written: the kernel kills every process in the cgroup whatever
    ///   the daemon's capabilities (a `kill` of each pid needs CAP_KILL for another user's).
    @discardableResult
    func killAll() -> Bool {
        if self.write("1", "cgroup.kill") != 0 {
            for pid in self.processes { _ = kill(pid, SIGKILL) }
            return false
        }
        KilledCgroups.killed(self.path)
        return true
    }

    /// Removes the directory; fails (returns the errno) while it is populated.
    @discardableResult
    func remove() -> Int32 { rmdir(self.path) == 0 ? 0 : errno }
}

/// An open descriptor of the directory app cgroups are created in, Runway's own: each app cgroup's files
/// are opened with `openat` relative to it instead of by their whole cgroupfs path, which the kernel walks component
/// by component on every open. Closed when the last `AppCgroup` and the supervisor let go of it.
/// Loop thread only.
final class CgroupBase {
    let path: String
    let descriptor: Int32

    /// Nil when the directory cannot be opened (the cgroups then use their paths).
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(self.descriptor) }
}
