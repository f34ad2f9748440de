import CRunwayProcess

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What `/proc` tells about a process (Linux `proc(5)`).
package enum ProcFS {
    /// Fields of `/proc/PID/stat` that Runway uses.
    struct Stat: Hashable {
        /// The one-letter state: `R`, `S`, `D`, `T` (stopped by a signal), `t`, `Z`, ...
        var state: Character
        var parent: Int32
        var processGroup: Int32
        var session: Int32
        /// When the process started, in clock ticks after boot (field 22): with the pid, it names one process
        /// across pid reuse.
        var startTime: UInt64
        /// Its number of threads (field 20).
        var threads: Int32 = 1
        /// The kernel's PF_* flags (field 9).
        var flags: UInt32 = 0

        /// True once the process has begun to exit (PF_EXITING): it closes its descriptors before it becomes a
        /// zombie, so a channel's end of file can come while its state is not yet `Z`.
        var isExiting: Bool { self.flags & 0x4 != 0 }
    }

    /// The fields of a `/proc/PID/stat` line after the command name, field N (proc(5), from 1) at index N - 3: the
    /// command name is in parentheses and may itself contain spaces and parentheses, so fields are counted from
    /// the last `)`. Nil when the line has no `)`.
    package static func statFields(_ line: String) -> [Substring]? {
        guard let close = line.lastIndex(of: ")") else { return nil }
        return line[line.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
    }

    /// Parses a `/proc/PID/stat` line (`statFields`).
    static func parseStat(_ line: String) -> Stat? {
        guard let fields = Self.statFields(line) else { return nil }
        // Field 3 (the state) is fields[0], so field 22 (the start time) is fields[19].
        guard fields.count >= 20, let state = fields[0].first, let parent = Int32(fields[1]),
            let group = Int32(fields[2]), let session = Int32(fields[3]), let start = UInt64(fields[19]),
            let threads = Int32(fields[17]), let flags = UInt64(fields[6])
        else { return nil }
        return Stat(
            state: state,
            parent: parent,
            processGroup: group,
            session: session,
            startTime: start,
            threads: threads,
            flags: UInt32(truncatingIfNeeded: flags)
        )
    }

    /// The stat of a live process, or nil when it is gone: read and parsed in C (`runway_proc_stat`), without
    /// allocating; the same fields as `parseStat`.
    static func stat(_ pid: Int32) -> Stat? {
        var raw = runway_proc_stat()
        guard runway_proc_stat(pid, nil, &raw) == 0 else { return nil }
        return Stat(
            state: Character(Unicode.Scalar(UInt8(bitPattern: raw.state))),
            parent: raw.parent,
            processGroup: raw.process_group,
            session: raw.session,
            startTime: raw.start_time,
            threads: raw.threads,
            flags: raw.flags
        )
    }

    /// The pids of every process whose process group is `group` (a scan of `/proc`).
    static func members(ofProcessGroup group: Int32) -> [Int32] {
        SystemFiles.entries(of: "/proc").compactMap(Int32.init).filter { Self.stat($0)?.processGroup == group }
    }

    /// Resident set size in bytes (`/proc/PID/statm`, second field, times the page size), or nil.
    static func residentBytes(_ pid: Int32) -> UInt64? {
        guard let text = SystemFiles.read("/proc/\(pid)/statm") else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count >= 2, let pages = UInt64(fields[1]) else { return nil }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// `/proc/PID/oom_score_adj`, or nil.
    static func oomScoreAdjust(_ pid: Int32) -> Int? {
        SystemFiles.read("/proc/\(pid)/oom_score_adj").flatMap { Int($0.trimmingWhitespace) }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and newlines.
    var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = self.firstIndex(where: { !isSpace($0) }), let last = self.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
