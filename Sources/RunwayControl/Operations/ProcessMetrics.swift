import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's own `process_*` series, as every Prometheus client library exports them (client_golang's
/// process collector: same names, units and help texts), read from `/proc/self` at each scrape. Neither
/// swift-prometheus nor swift-metrics offers a collector that reads on scrape. These reads answer from memory in
/// microseconds; the descriptor count, which other exporters take from listing `/proc/self/fd`, is one `poll` over
/// the descriptor table instead (`openDescriptorCount`), a hundredth of the cost at thousands of descriptors.
///
/// Threading: any thread; reads the kernel, keeps nothing.
struct ProcessMetrics: Equatable {
    /// User and system CPU time, in seconds.
    var cpuSeconds: Double
    var residentBytes: UInt64
    var virtualBytes: UInt64
    /// Seconds since the Unix epoch.
    var startTimeSeconds: Double
    var openDescriptors: Int
    /// The soft `RLIMIT_NOFILE`; infinity when unlimited.
    var maxDescriptors: Double

    /// The values of `/proc/self/stat` (`stat`) given the boot time (`btime` of `/proc/stat`, seconds since the
    /// epoch), clock ticks per second and the page size. Nil when the line is not a stat line.
    ///
    /// - Note: the fields are `ProcFS.statFields`, counted after the command name. Fields 14 and 15 (utime,
    ///   stime) and 22 (starttime) are in clock ticks; 23 (vsize) in bytes; 24 (rss) in pages (proc(5)).
    static func parse(
        stat: String,
        bootTimeSeconds: Double,
        ticksPerSecond: Double,
        pageBytes: UInt64
    ) -> (cpuSeconds: Double, residentBytes: UInt64, virtualBytes: UInt64, startTimeSeconds: Double)? {
        guard let fields = ProcFS.statFields(stat), ticksPerSecond > 0 else { return nil }
        // Field N is at index N - 3.
        guard fields.count >= 22, let user = UInt64(fields[11]), let system = UInt64(fields[12]),
            let start = UInt64(fields[19]), let virtual = UInt64(fields[20]), let resident = Int64(fields[21])
        else { return nil }
        return (
            Double(user + system) / ticksPerSecond, UInt64(max(0, resident)) * pageBytes, virtual,
            bootTimeSeconds + Double(start) / ticksPerSecond
        )
    }

    /// `btime` of `/proc/stat`: the boot time in seconds since the epoch.
    static func parseBootTime(_ procStat: String) -> Double? {
        for line in procStat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count))
        }
        return nil
    }

    /// This process's values now, or nil when `/proc` cannot be read (then no `process_*` series is written).
    static func read() -> ProcessMetrics? {
        guard let stat = SystemFiles.read("/proc/self/stat"),
            let boot = SystemFiles.read("/proc/stat").flatMap(Self.parseBootTime),
            let values = Self.parse(
                stat: stat,
                bootTimeSeconds: boot,
                ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))),
                pageBytes: UInt64(max(0, sysconf(Int32(_SC_PAGESIZE))))
            ),
            let tableSize = SystemFiles.read("/proc/self/status").flatMap(Self.parseTableSize)
        else { return nil }
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        let unlimited = limit.rlim_cur == rlim_t.max
        let max = unlimited ? Double.infinity : Double(limit.rlim_cur)
        let slots = unlimited ? tableSize : Int(limit.rlim_cur)
        guard let open = Self.openDescriptorCount(tableSize: tableSize, limit: slots) else { return nil }
        return ProcessMetrics(
            cpuSeconds: values.cpuSeconds,
            residentBytes: values.residentBytes,
            virtualBytes: values.virtualBytes,
            startTimeSeconds: values.startTimeSeconds,
            openDescriptors: open,
            maxDescriptors: max
        )
    }

    /// The descriptors open now: one `poll(2)` with a zero timeout over every slot of the descriptor table (its
    /// size is `FDSize` of `/proc/self/status`), counting those not answered `POLLNVAL`. Listing `/proc/self/fd`,
    /// as other exporters do, makes the kernel build a directory entry per descriptor: 25 to 110 ms for 20,000
    /// descriptors (a daemon of some 6,000 running process apps), against 0.6 to 1.9 ms for this poll (Decision
    /// 274). With a zero timeout, `poll` registers no wait and changes nothing. `poll` also answers `POLLNVAL` for
    /// an `O_PATH` descriptor (one per app with a `StandardOutPath`: its log directory), so each slot answered
    /// `POLLNVAL` is asked `fcntl(F_GETFD)`, which an open `O_PATH` descriptor answers and an empty slot fails with
    /// EBADF. Slots at or above the soft `RLIMIT_NOFILE` are not looked at (`poll` takes no more).
    static func openDescriptorCount(tableSize: Int, limit: Int) -> Int? {
        let slots = min(tableSize, limit)
        guard slots > 0 else { return nil }
        var table = [pollfd](repeating: pollfd(fd: 0, events: 0, revents: 0), count: slots)
        for index in table.indices { table[index].fd = Int32(index) }
        var answered: Int32
        repeat {
            answered = table.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 0) }
        } while answered < 0 && errno == EINTR
        guard answered >= 0 else { return nil }
        return table.count(where: { $0.revents & Int16(POLLNVAL) == 0 || fcntl($0.fd, F_GETFD) != -1 })
    }

    /// `FDSize` of `/proc/self/status`: the slots of this process's descriptor table.
    static func parseTableSize(_ status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix("FDSize:") {
            return Int(String(line.dropFirst("FDSize:".count).filter(\.isNumber)))
        }
        return nil
    }

    /// The exposition text: a `# HELP`, a `# TYPE` and one sample for each series.
    func render(into body: inout [UInt8]) {
        var text = ""
        func series(_ name: String, _ type: String, _ help: String, _ value: String) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        series(
            "process_cpu_seconds_total",
            "counter",
            "Total user and system CPU time spent in seconds.",
            "\(self.cpuSeconds)"
        )
        series("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", "\(self.residentBytes)")
        series("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", "\(self.virtualBytes)")
        series(
            "process_start_time_seconds",
            "gauge",
            "Start time of the process since unix epoch in seconds.",
            "\(self.startTimeSeconds)"
        )
        series("process_open_fds", "gauge", "Number of open file descriptors.", "\(self.openDescriptors)")
        let max = self.maxDescriptors.isFinite ? "\(UInt64(self.maxDescriptors))" : "+Inf"
        series("process_max_fds", "gauge", "Maximum number of open file descriptors.", max)
        body.append(contentsOf: text.utf8)
    }
}
