import Foundation
import Testing

@testable import RunwayControl

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's `process_*` series (Docs/Operations.md): `/proc/self/stat` parsed field by field, and the live
/// reading of this test process.
@Suite struct ProcessMetricsTests {
    /// A stat line whose command name holds spaces and parentheses, as proc(5) allows: fields are counted after
    /// the last `)`. utime 250 + stime 50 ticks, starttime 1,000 ticks, vsize 8 MiB, rss 512 pages.
    static let stat =
        "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 1000 8388608 512 "
        + "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0"

    @Test func aStatLineGivesCPUSecondsMemoryAndTheStartTime() throws {
        let values = try #require(
            ProcessMetrics.parse(stat: Self.stat, bootTimeSeconds: 1_700_000_000, ticksPerSecond: 100, pageBytes: 4096)
        )
        #expect(values.cpuSeconds == 3)
        #expect(values.virtualBytes == 8_388_608)
        #expect(values.residentBytes == 512 * 4096)
        #expect(values.startTimeSeconds == 1_700_000_010)
        #expect(ProcessMetrics.parse(stat: "4242 (cut", bootTimeSeconds: 0, ticksPerSecond: 100, pageBytes: 1) == nil)
        #expect(ProcessMetrics.parse(stat: "1 (x) S 1 2", bootTimeSeconds: 0, ticksPerSecond: 100, pageBytes: 1) == nil)
    }

    @Test func theBootTimeIsBtimeOfProcStat() {
        #expect(ProcessMetrics.parseBootTime("cpu  1 2 3\nintr 5\nbtime 1764000000\nprocesses 9\n") == 1_764_000_000)
        #expect(ProcessMetrics.parseBootTime("cpu  1 2 3\n") == nil)
    }

    @Test func theOpenDescriptorsAreThoseProcSelfFdLists() throws {
        // A few hundred descriptors open beyond the table's first slots, some closed again in between.
        var opened: [Int32] = []
        for _ in 0..<300 { opened.append(open("/dev/null", O_RDONLY | O_CLOEXEC)) }
        for fd in opened where fd % 3 == 0 { close(fd) }
        defer { for fd in opened where fd % 3 != 0 { close(fd) } }
        let status = try #require(try? String(contentsOfFile: "/proc/self/status", encoding: .utf8))
        let tableSize = try #require(ProcessMetrics.parseTableSize(status))
        #expect(tableSize >= 300)
        // The listing holds one descriptor of its own while it reads. Tests running beside this one open and close
        // descriptors too: the two readings agree at a moment when none did.
        let agree = Self.atSomeQuietMoment {
            let counted = ProcessMetrics.openDescriptorCount(tableSize: tableSize, limit: 1 << 20)
            let listed = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count).map { $0 - 1 }
            return counted != nil && counted == listed
        }
        #expect(agree)
        #expect(ProcessMetrics.openDescriptorCount(tableSize: tableSize, limit: 3) == 3)
        #expect(ProcessMetrics.parseTableSize("Name:\trunway\nFDSize:\t256\nGroups:\n") == 256)
    }

    @Test func openPathDescriptorsCountAsOpen() throws {
        // `poll` answers POLLNVAL for an O_PATH descriptor as for an empty slot.
        var opened: [Int32] = []
        // O_PATH, Linux's value (Glibc's module shows it only under _GNU_SOURCE), as LogDirectory opens with.
        let openPath: Int32 = 0o10_000_000
        for _ in 0..<40 { opened.append(open("/", openPath | O_CLOEXEC)) }
        defer { for fd in opened { close(fd) } }
        try #require(opened.allSatisfy { $0 >= 0 })
        let status = try #require(try? String(contentsOfFile: "/proc/self/status", encoding: .utf8))
        let tableSize = try #require(ProcessMetrics.parseTableSize(status))
        let agree = Self.atSomeQuietMoment {
            let counted = ProcessMetrics.openDescriptorCount(tableSize: tableSize, limit: 1 << 20)
            let listed = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count).map { $0 - 1 }
            return counted != nil && counted == listed
        }
        #expect(agree, "the count equals /proc/self/fd's listing with 40 O_PATH descriptors open")
    }

    /// True once `condition` holds, tried up to 50 times (other tests' descriptors come and go in this process).
    static func atSomeQuietMoment(_ condition: () -> Bool) -> Bool {
        (0..<50).contains { _ in condition() }
    }

    @Test func theLiveReadingFollowsThisProcess() throws {
        var reading: ProcessMetrics?
        let followed = Self.atSomeQuietMoment {
            let before = ProcessMetrics.read()
            let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            reading = ProcessMetrics.read()
            close(fd)
            return before != nil && reading?.openDescriptors == before.map { $0.openDescriptors + 1 }
        }
        #expect(followed)
        let after = try #require(reading)
        #expect(after.residentBytes > 0 && after.virtualBytes >= after.residentBytes)
        let now = Date().timeIntervalSince1970
        #expect(after.startTimeSeconds > now - 24 * 3600 && after.startTimeSeconds <= now + 1)
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        #expect(after.maxDescriptors == Double(limit.rlim_cur))

        var body: [UInt8] = []
        after.render(into: &body)
        let text = String(decoding: body, as: UTF8.self)
        for (name, type) in [
            ("process_cpu_seconds_total", "counter"), ("process_resident_memory_bytes", "gauge"),
            ("process_virtual_memory_bytes", "gauge"), ("process_start_time_seconds", "gauge"),
            ("process_open_fds", "gauge"), ("process_max_fds", "gauge"),
        ] {
            #expect(text.contains("# TYPE \(name) \(type)\n"), "\(text)")
            #expect(text.contains("\n\(name) "), "\(text)")
        }
        #expect(text.contains("\nprocess_open_fds \(after.openDescriptors)\n"), "\(text)")
    }
}
