import CRunwayProcess

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The parent-to-children links of the live process tree, read from `/proc` for one scan: each
/// `/proc/PID/task/TID/children` (Linux 3.5+ with `CONFIG_PROC_CHILDREN`), or where that file does not exist
/// one pass over every `/proc/PID/stat`. The kernel documents the children files as exact only for stopped
/// tasks: a fork racing the read may be missed by this scan and found by the next. Loop thread only.
struct ProcessTree {
    /// True when this kernel has `/proc/PID/task/TID/children` (checked once, on this process).
    static let hasChildrenFiles: Bool = {
        let pid = getpid()
        return access("/proc/\(pid)/task/\(pid)/children", R_OK) == 0
    }()

    /// The parent map of the whole system, read lazily when the children files are missing.
    private var parentMap: [Int32: [Int32]]?
    /// `/proc/PID/stat` readings the caller made in this loop turn, by pid, used instead of reading again
    /// (a stopped process's state does not change until SIGCONT); the start time check still applies to them.
    var known: [Int32: ProcFS.Stat] = [:]

    init() {
        self.parentMap = Self.hasChildrenFiles ? nil : Self.readParentMap()
    }

    /// The pids of `pid`'s children (zombies included), as listed now: read and parsed in C
    /// (`runway_proc_children`), into a buffer that grows when the list is longer. `threads` is the count its
    /// stat showed, when the caller read it: with 1, only the main thread's list is read (no listing of its tasks).
    func children(of pid: Int32, threads: Int32? = nil) -> [Int32] {
        if let parentMap = self.parentMap { return parentMap[pid] ?? [] }
        var capacity = 64
        while true {
            var count: Int32 = 0
            let result = [Int32](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                count = runway_proc_children(pid, threads == 1 ? 1 : 0, buffer.baseAddress, Int32(capacity))
                initialized = Int(max(0, min(count, Int32(capacity))))
            }
            if Int(count) <= capacity { return result }
            capacity = Int(count) + 64  // More children than room (some may arrive before the next read).
        }
    }

    /// This process's children but those the calling thread started (the loop thread: the apps' main processes),
    /// as listed now (`runway_proc_own_children`): where a process that left its app's tree ends up, read in
    /// O(such children) instead of O(apps running). The calling thread's list is read too while it is the first
    /// live thread of this process, the one the kernel gives such processes to.
    func ownChildren() -> [Int32] {
        if let parentMap = self.parentMap { return parentMap[getpid()] ?? [] }
        var capacity = 64
        while true {
            var count: Int32 = 0
            var skipped: Int32 = 0
            let result = [Int32](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                count = runway_proc_own_children(buffer.baseAddress, Int32(capacity), &skipped)
                initialized = Int(max(0, min(count, Int32(capacity))))
            }
            if Int(count) <= capacity { return result }
            capacity = Int(count) + 64  // More children than room (some may arrive before the next read).
        }
    }

    /// Every live, non-zombie process reachable from `roots` (the roots included), each with its start time,
    /// at most `limit` of them. Gone processes and zombies are left out, and so is a root whose pid now names
    /// a process that started at another time than `startTime` (nil: any).
    ///
    /// - Returns: The processes and whether `limit` cut the walk short.
    func descendants(
        of roots: [(pid: Int32, startTime: UInt64?)],
        limit: Int
    ) -> (processes: Set<ProcessIdentity>, truncated: Bool) {
        var found = Set<ProcessIdentity>()
        var visited = Set<Int32>()
        var queue = roots
        while let (pid, expected) = queue.popLast() {
            guard visited.insert(pid).inserted else { continue }
            guard let stat = self.known[pid] ?? ProcFS.stat(pid), expected == nil || expected == stat.startTime else {
                continue
            }
            if stat.state != "Z" && stat.state != "X" {
                guard found.count < limit else { return (found, true) }
                found.insert(ProcessIdentity(pid: pid, startTime: stat.startTime))
            }
            queue += self.children(of: pid, threads: stat.threads).map { ($0, nil) }
        }
        return (found, false)
    }

    /// parent pid to children pids, over every process in `/proc`.
    private static func readParentMap() -> [Int32: [Int32]] {
        var map: [Int32: [Int32]] = [:]
        for name in SystemFiles.entries(of: "/proc") {
            guard let pid = Int32(name), let stat = ProcFS.stat(pid) else { continue }
            map[stat.parent, default: []].append(pid)
        }
        return map
    }
}

extension ProcFS {
    /// How much of a process's environment `environmentValue` reads: a process chooses its environment's size
    /// (up to the kernel's argument limit, megabytes), and the loop thread reads it.
    static let environmentReadLimit = 64 << 10

    /// The value of `key` in the environment the process was started with (`/proc/PID/environ`), or nil. A
    /// process can overwrite that memory, so this is a hint, not a proof. Only the first `limitBytes` are read: a
    /// variable beyond them, or cut by them, is not found.
    ///
    /// The kernel lets the process's own user read the file, or a holder of CAP_SYS_PTRACE (which a daemon is
    /// not given: it would let it trace any process). The file is opened as the owner of `/proc/PID` instead
    /// (this thread's file-system ids, which CAP_SETUID and CAP_SETGID allow), so that an app running as another
    /// user is read as well (`runway_open_environ_as_owner`).
    static func environmentValue(_ pid: Int32, _ key: String, limitBytes: Int = environmentReadLimit) -> String? {
        let fd = runway_open_environ_as_owner(pid)
        guard fd >= 0, let text = SystemFiles.read(descriptor: fd, limitBytes: limitBytes) else { return nil }
        var entries = text.split(separator: "\0", omittingEmptySubsequences: false)
        // Every entry ends with a NUL: the last one, when the read stopped inside it, is not whole.
        if !text.hasSuffix("\0") { entries.removeLast() }
        let prefix = key + "="
        for entry in entries where entry.hasPrefix(prefix) {
            return String(entry.dropFirst(prefix.count))
        }
        return nil
    }

    /// This boot's identifier (`/proc/sys/kernel/random/boot_id`), or "" when it cannot be read: start times
    /// count from boot, so they name a process only within one boot.
    static var bootID: String {
        BootID.read() ?? ""
    }
}
