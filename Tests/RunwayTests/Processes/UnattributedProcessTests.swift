import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// Processes that leave an app's tree with `RUNWAY_APP` scrubbed (double fork, `setsid`, `env -i`), re-parented
/// to this process (a child subreaper) and unattributed: each one's environment is read once, and at most its
/// first 64 KiB, however often the scans run (a daemon's stop ending them: `DaemonUnattributedStopTests`). Real
/// processes throughout.
@Suite("Process apps: unattributed processes", .serialized)
struct UnattributedProcessTests {
    /// An app that starts `count` processes that double-fork out of its session with an environment of
    /// `environmentBytes` bytes and no `RUNWAY_APP`; each appends its pid to `pidFile`.
    static func scrubber(_ id: AppID, count: Int, environmentBytes: Int, pidFile: String) -> AppDescriptor {
        let escape = "setsid env -i BIG=\"$big\" sh -c 'sleep 1000 & echo $! >> \(pidFile)' &"
        let script =
            "big=$(head -c \(environmentBytes) /dev/zero | tr '\\0' a); i=0; "
            + "while [ $i -lt \(count) ]; do \(escape) i=$((i+1)); done; " + ProcessTestSupport.idleLoop
        return ProcessTestSupport.shell(id, script)
    }

    /// Launches a scrubber app in `mechanism`; returns the scheduler and the escaped pids, once every one is a
    /// child of this process.
    static func launchScrubber(
        _ app: AppID,
        _ mechanism: SuspensionMechanism,
        count: Int,
        environmentBytes: Int,
        pidFile: String
    ) async throws -> (RunwayScheduler, [Int32]) {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let descriptor = Self.scrubber(app, count: count, environmentBytes: environmentBytes, pidFile: pidFile)
        try scheduler.register(process: descriptor)
        try scheduler.perform(.launch, on: app)
        let pids = await Escapees.pids(in: pidFile, count: count)
        #expect(pids.count == count)
        // Another suite's supervisor closing meanwhile may end them: it cannot tell whose they are.
        #expect(
            await eventually {
                pids.allSatisfy { ProcFS.stat($0)?.parent == getpid() || ProcessTestSupport.isGone($0) }
            }
        )
        return (scheduler, pids)
    }

    /// The unattributed pids the supervisor holds now, after a scan of this process's own children.
    static func unattributed(_ scheduler: RunwayScheduler) -> Set<Int32> {
        scheduler.bridge.sync { driver -> Set<Int32> in
            let supervisor = driver.processSupervisor()
            supervisor.refreshOwnChildren()
            return Set(supervisor.processScan.unattributed.map(\.pid))
        } ?? []
    }

    @Test("A child's environment is read once in its life, however many scans look at it")
    func childEnvironmentIsReadOncePerProcess() async throws {
        let file = TemporaryPaths.file()
        defer { unlink(file) }
        let count = 16
        let (scheduler, pids) = try await Self.launchScrubber(
            "com.test.unattributed.reads",
            .signal,
            count: count,
            environmentBytes: 100_000,
            pidFile: file
        )
        #expect(
            await eventually {
                let unattributed = Self.unattributed(scheduler)
                return pids.allSatisfy { unattributed.contains($0) || ProcessTestSupport.isGone($0) }
            }
        )
        let reads = scheduler.bridge.sync { driver -> Int in
            let supervisor = driver.processSupervisor()
            let before = supervisor.scanCounts.childEnvironmentReads
            for _ in 0..<20 { supervisor.refreshOwnChildren() }
            return supervisor.scanCounts.childEnvironmentReads - before
        }
        // Every escapee was read before; a process another test starts meanwhile may be read once.
        #expect(try #require(reads) < count, "environment reads in 20 scans of \(count) unattributed processes")
        await scheduler.shutdown()
        for pid in pids where !ProcessTestSupport.isGone(pid) { kill(pid, SIGKILL) }
    }

    @Test("Only the first 64 KiB of a process's environment are read: a variable beyond them is not found")
    func environmentValueReadsABoundedPrefix() throws {
        func value(_ environment: [String]) throws -> String? {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["-i"] + environment + ["/bin/sleep", "1000"]
            try process.run()
            defer {
                // SIGKILL: the sleep inherits the test thread's signal mask, which may block SIGTERM.
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            let pid = process.processIdentifier
            // `env` execs the sleep; its environment is the one given once it is no longer `env`.
            let sleeping = (0..<2000).contains { _ in
                if SystemFiles.read("/proc/\(pid)/comm")?.hasPrefix("sleep") == true { return true }
                usleep(1_000)
                return false
            }
            #expect(sleeping)
            return ProcFS.environmentValue(pid, "RUNWAY_APP")
        }
        let pad = "PAD=" + String(repeating: "a", count: 70_000)
        #expect(try value(["RUNWAY_APP=com.test.first", pad]) == "com.test.first")
        #expect(try value([pad, "RUNWAY_APP=com.test.beyond"]) == nil)
        // A variable cut by the limit is not taken for a shorter value.
        let cut = "PAD=" + String(repeating: "a", count: ProcFS.environmentReadLimit - 4 - 15)
        #expect(try value([cut, "RUNWAY_APP=com.test.cut"]) == nil)
    }
}
