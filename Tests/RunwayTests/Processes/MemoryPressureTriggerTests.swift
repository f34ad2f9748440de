import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// P3 through a PSI trigger, with real memory pressure: a process that re-reads a file mapped in memory several
/// times larger than the memory limit of its cgroup stalls on reclaim, and the cgroup's `memory.pressure` shows it.
/// The monitor reads nothing until the kernel fires the trigger. Needs root, a cgroup v2 mount and a memory
/// controller (v2 `memory.max`, or v1's `memory.limit_in_bytes`).
@Suite("Process apps: memory pressure through a PSI trigger (P3)", .serialized)
struct MemoryPressureTriggerTests {
    /// A cgroup v2 directory (for `memory.pressure`) and the file that limits its memory (v2 or v1), made for one
    /// test and removed after it.
    struct PressedCgroup {
        let v2: String
        let limitDirectory: String
        let limitFile: String

        /// Nil when this machine offers no such pair (not root, no cgroup v2 mount, no memory controller).
        static func make(_ name: String) -> PressedCgroup? {
            guard getuid() == 0, let mounts = SystemFiles.read("/proc/self/mountinfo") else { return nil }
            var v2Mount: String?
            var v1Memory: String?
            for line in mounts.split(separator: "\n") {
                let fields = line.split(separator: " ")
                guard fields.count > 4, let separator = fields.firstIndex(of: "-"), separator + 1 < fields.count
                else { continue }
                let type = fields[separator + 1]
                if type == "cgroup2", line.contains(" rw,") { v2Mount = String(fields[4]) }
                if type == "cgroup", fields.last?.split(separator: ",").contains("memory") == true {
                    v1Memory = String(fields[4])
                }
            }
            guard let v2Mount else { return nil }
            let v2 = "\(v2Mount)/\(name)"
            guard mkdir(v2, 0o755) == 0 else { return nil }
            if FileManager.default.fileExists(atPath: "\(v2)/memory.max") {
                return PressedCgroup(v2: v2, limitDirectory: v2, limitFile: "memory.max")
            }
            guard let v1Memory, mkdir("\(v1Memory)/\(name)", 0o755) == 0 else {
                rmdir(v2)
                return nil
            }
            return PressedCgroup(v2: v2, limitDirectory: "\(v1Memory)/\(name)", limitFile: "memory.limit_in_bytes")
        }

        /// Removes both directories once the processes in them are gone (a killed one leaves a moment later, and
        /// the scheduler's zombie sweep may have reaped it before the test's `waitpid`); gives up after 5 s.
        func remove() {
            for _ in 0..<500 where !(SystemFiles.read("\(self.v2)/cgroup.procs") ?? "").isEmpty { usleep(10_000) }
            rmdir(self.v2)
            if self.limitDirectory != self.v2 { rmdir(self.limitDirectory) }
        }
    }

    static let available: Bool = {
        guard let probe = PressedCgroup.make("runway-psi-probe-\(getpid())") else { return false }
        probe.remove()
        return true
    }()

    @Test(
        "P3: with a PSI trigger nothing is read while there is no pressure; a stall fires it and apps are warned",
        .enabled(if: Self.available)
    )
    func P3_triggerReadsOnlyOnStallAndWarns() async throws {
        let cgroup = try #require(PressedCgroup.make("runway-psi-\(getpid())"))
        defer { cgroup.remove() }
        #expect(SystemFiles.write("25165824", to: "\(cgroup.limitDirectory)/\(cgroup.limitFile)") == 0)
        let file = TemporaryPaths.file()
        defer { unlink(file) }

        var options = ProcessTestSupport.options(.signal)
        options.memoryPressure = MemoryPressureOptions(
            source: .psi(path: "\(cgroup.v2)/memory.pressure"),
            pollInterval: .milliseconds(20)
        )
        var settings = ProtocolApps.settings
        settings.memoryPressure = MemoryPressurePolicy(warningPercent: 5, criticalPercent: 100)
        let log = Recorder<String>()
        let scheduler = try RunwayScheduler(settings: settings, processOptions: options, logger: .recording(log))
        let listener: AppID = "com.test.p3.trigger.listener"
        try scheduler.register(process: ProcessTestSupport.sample(listener, environment: [:]))
        try scheduler.perform(.launch, on: listener)
        #expect(await ProtocolApps.printed(log, listener, "received didBecomeActive"))

        // No pressure in the new cgroup: three poll intervals' worth of time pass without a reading.
        try await Task.sleep(for: .milliseconds(100))
        let idle = scheduler.bridge.sync { driver in
            (driver.memoryMonitor?.usesTrigger, driver.memoryMonitor?.sampleCount)
        }
        #expect(idle?.0 == true, "\(log.values)")
        #expect(idle?.1 == 0, "readings with no pressure")

        // The pressing process joins the cgroup, writes a 128 MiB file there in 1 MiB writes (its pages are charged
        // to the cgroup), then maps it and reads every page again and again: each pass refaults most of them under
        // a 24 MiB limit (which leaves room for the interpreter itself). It stops by itself after 30 s, should this
        // test be killed before it ends it: its stall counts in the whole system's pressure.
        let press =
            "import mmap\nf = open('\(file)', 'wb')\nfor _ in range(128): f.write(b'x' * (1 << 20))\nf.close()\n"
            + "r = open('\(file)', 'rb')\nm = mmap.mmap(r.fileno(), 0, prot=mmap.PROT_READ)\n"
            + "import time\nend = time.monotonic() + 30\n"
            + "while time.monotonic() < end:\n    s = sum(m[i] for i in range(0, len(m), 4096))\n"
        let joins = "echo $$ > \(cgroup.v2)/cgroup.procs && echo $$ > \(cgroup.limitDirectory)/cgroup.procs"
        let presser = try ChildProgram.spawn("/bin/sh", ["-c", "\(joins) && exec python3 -c \"$0\"", press])
        defer {
            // SIGKILL: a child of a test thread may start with SIGTERM blocked.
            kill(presser, SIGKILL)
            _ = waitpid(presser, nil, 0)
        }
        #expect(await ProtocolApps.printed(log, listener, "received didReceiveMemoryWarning"), "\(log.values)")
        let sampled = scheduler.bridge.sync { driver in driver.memoryMonitor?.sampleCount ?? 0 }
        #expect((sampled ?? 0) > 0)
        await scheduler.shutdown()
    }
}
