import Foundation
import MetricsTestKit
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// `runway_suspensions_unconfirmed_total` (Docs/Operations.md) with a real child and a real cgroup: a task frozen
/// by the cgroup v2 freezer does not take SIGSTOP until it is thawed, and shows `S` meanwhile, so the kernel never
/// shows the suspension the signal mechanism asked for.
@Suite("Process apps: unconfirmed suspensions are counted", .serialized)
struct UnconfirmedSuspensionMetricTests {
    @Test(
        "P1: a suspension the kernel does not show within confirmationTimeout is counted once",
        .enabled(if: ProcessTestSupport.freezerAvailable)
    )
    func P1_aSuspensionNotShownInTimeIsCountedUnconfirmed() async throws {
        let metrics = TestMetrics()
        var options = ProcessTestSupport.options(.signal)
        options.confirmationTimeout = .milliseconds(300)
        let scheduler = try RunwayScheduler(settings: shortSettings, processOptions: options, metricsFactory: metrics)
        let app: AppID = "com.test.unconfirmed"
        try scheduler.register(process: ProcessTestSupport.shell(app, "exec /bin/sleep 1000"))
        try scheduler.perform(.launch, on: app)
        let pid = try #require(scheduler.processes()[app]?.pid)
        #expect(metrics.counterTotal(label: "runway_suspensions_unconfirmed_total") == 0)

        // The test (root) moves the app's process into a cgroup of its own and freezes it.
        guard case .success(let hierarchy) = CgroupHierarchy.discover() else {
            Issue.record("no cgroup v2 hierarchy")
            return
        }
        let cgroup = "\(hierarchy.ownDirectory)/unconfirmed-test.\(getpid())"
        try #require(mkdir(cgroup, 0o755) == 0 || errno == EEXIST)
        defer { _ = rmdir(cgroup) }
        #expect(SystemFiles.write("\(pid)", to: "\(cgroup)/cgroup.procs") == 0)
        #expect(await ProcessTestSupport.freezeFromOutside(cgroup))

        // A plain process with no task is suspended on entering the background (B5): SIGSTOP, not shown.
        try scheduler.perform(.home, on: app)
        #expect(await eventually { metrics.counterTotal(label: "runway_suspensions_unconfirmed_total") == 1 })
        #expect(scheduler.processes()[app]?.suspensionConfirmed != true)

        // Thawed, the process takes its SIGSTOP; the count stays at the one suspension that timed out.
        #expect(SystemFiles.write("0", to: "\(cgroup)/cgroup.freeze") == 0)
        try scheduler.perform(.terminate, on: app)
        #expect(await eventually { scheduler.status().first { $0.app == app }?.state == .notRunning })
        #expect(metrics.counterTotal(label: "runway_suspensions_unconfirmed_total") == 1)
        await scheduler.shutdown()
    }
}
