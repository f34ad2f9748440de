import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// P3 with real children and a simulated pressure signal: a PSI file the test writes.
@Suite("Process apps: memory pressure (P3, S14)", .serialized)
struct MemoryPressureTests {
    static func writePSI(_ path: String, some: Double) throws {
        let text = "some avg10=\(some) avg60=0.00 avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
        try text.write(toFile: path + ".tmp", atomically: false, encoding: .utf8)
        #expect(rename(path + ".tmp", path) == 0)
    }

    @Test("PSI parsing reads `some avg10`")
    func parsesPSI() {
        #expect(MemoryPressureMonitor.parsePSI("some avg10=12.50 avg60=1 avg300=0 total=5\nfull avg10=3.00") == 12.5)
        #expect(MemoryPressureMonitor.parsePSI("full avg10=3.00") == nil)
    }

    @Test("P3/S14: warning to running apps, then purge of suspended apps longest-suspended first; active apps never")
    func P3_warningThenPurgeInOrder() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runway-psi-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let psi = directory.appendingPathComponent("memory").path
        try Self.writePSI(psi, some: 0)

        var options = ProcessTestSupport.options(.auto)
        options.memoryPressure = MemoryPressureOptions(source: .psi(path: psi), pollInterval: .milliseconds(20))
        var settings = ProtocolApps.settings
        settings.memoryPressure = MemoryPressurePolicy(warningPercent: 10, criticalPercent: 30)
        let log = Recorder<String>()
        let scheduler = try RunwayScheduler(settings: settings, processOptions: options, logger: .recording(log))
        let watcher = TransitionWatcher(scheduler)
        let first: AppID = "com.test.p3.first"
        let second: AppID = "com.test.p3.second"
        let active: AppID = "com.test.p3.active"
        let listener: AppID = "com.test.p3.listener"
        for app in [first, second, active] {
            try scheduler.register(process: ProcessTestSupport.shell(app, ProcessTestSupport.idleLoop))
        }
        try scheduler.register(process: ProcessTestSupport.sample(listener, environment: [:]))
        for app in [first, second, active, listener] { try scheduler.perform(.launch, on: app) }
        try scheduler.perform(.home, on: first)
        #expect(await watcher.first { $0.app == first && $0.to == .suspended } != nil)
        try scheduler.perform(.home, on: second)
        #expect(await watcher.first { $0.app == second && $0.to == .suspended } != nil)
        #expect(await ProtocolApps.printed(log, listener, "received didBecomeActive"))

        // Warning level: running apps are told, nothing is purged.
        try Self.writePSI(psi, some: 15)
        #expect(await ProtocolApps.printed(log, listener, "received didReceiveMemoryWarning"))
        #expect(!watcher.events.contains { $0.cause == .terminated(.memoryPressure) })

        // Critical: one purge per poll, longest-suspended first, until nothing suspended is left.
        try Self.writePSI(psi, some: 60)
        #expect(
            await eventually {
                watcher.events.filter { $0.cause == .terminated(.memoryPressure) }.count == 2
            }
        )
        let purged = watcher.events.filter { $0.cause == .terminated(.memoryPressure) }.map(\.app)
        #expect(purged == [first, second])
        let states = Dictionary(uniqueKeysWithValues: scheduler.status().map { ($0.app, $0.state) })
        #expect(states[active] == .active)
        #expect(states[listener] == .active)
        await scheduler.shutdown()
    }
}
