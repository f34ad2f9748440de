import Foundation
@_spi(Processes) import Runway
import RunwayConfig
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@testable import RunwayControl

/// The daemon's metrics as the fleet grows (Docs/Operations.md, "Series per app"): a real scheduler with real
/// embedded apps, its `DaemonMetrics` rendered as a scrape renders it, the work counted in registry lookups and
/// series, never in seconds.
@Suite(.serialized) struct MetricsScaleTests {
    /// A scheduler with `count` stand-in apps `com.example.app0` ... registered.
    static func scheduler(apps count: Int) throws -> RunwayScheduler {
        let scheduler = try RunwayScheduler()
        for number in 0..<count {
            try scheduler.register(AppDescriptor(id: AppID("com.example.app\(number)")), delegate: StandInApp())
        }
        return scheduler
    }

    /// The value of the sample `series` (exactly as written) in an exposition text, or nil.
    static func sample(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    /// `promtool check metrics` (Debian's prometheus package) on `text`: required in CI, skipped with a note
    /// elsewhere when it is not installed.
    static func promtoolCheck(_ text: String) throws {
        guard
            let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            #expect((ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty, "promtool is missing in CI")
            print("note: promtool is not installed; `promtool check metrics` skipped (apt-get install prometheus)")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: promtool)
        process.arguments = ["check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Written from another thread: promtool reads while it writes its findings.
        let data = Data(text.utf8)
        Thread.detachNewThread {
            input.fileHandleForWriting.write(data)
            try? input.fileHandleForWriting.close()
        }
        let found = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "promtool check metrics:\n\(found.prefix(2_000))")
    }

    static func lines(_ body: [UInt8], containing text: String) -> Int {
        String(decoding: body, as: UTF8.self).split(separator: "\n").filter { $0.contains(text) }.count
    }

    @Test func aScrapeOfTenThousandAppsRegistersNothingAndHasOneSeriesPerApp() async throws {
        let count = 10_000
        let scheduler = try Self.scheduler(apps: count)
        let metrics = DaemonMetrics(perApp: .state)
        metrics.attach(scheduler)
        let before = metrics.factory.lookups.count
        let first = metrics.render()
        let second = metrics.render()
        // Each scrape looks up runway_metrics_scrapes_total and at most runway_loop_busy_seconds_total, whatever
        // the number of apps.
        #expect(metrics.factory.lookups.count - before <= 4)
        for body in [first, second] {
            #expect(Self.lines(body, containing: "{app=\"") == count)
            #expect(Self.lines(body, containing: "runway_app_state{app=\"") == count)
        }
        let text = String(decoding: second, as: UTF8.self)
        #expect(Self.sample(text, "runway_app_state{app=\"com.example.app9999\",state=\"notRunning\"}") == 1)
        #expect(Self.sample(text, "runway_apps") == Double(count))
        #expect(Self.sample(text, "runway_apps_in_state{state=\"notRunning\"}") == Double(count))
        #expect(Self.sample(text, "runway_apps_in_state{state=\"active\"}") == 0)
        try Self.promtoolCheck(text)
        await scheduler.shutdown()
    }

    @Test func theStateSeriesFollowTransitionsAndAppsRegisteredAfterTheStart() async throws {
        let scheduler = try Self.scheduler(apps: 3)
        let metrics = DaemonMetrics(perApp: .state)
        metrics.attach(scheduler)
        let app: AppID = "com.example.app1"
        try scheduler.perform(.launch, on: app)
        try waitUntil("app1 active") { scheduler.status().first { $0.app == app }?.state == .active }
        try scheduler.register(AppDescriptor(id: "com.example.late"), delegate: StandInApp())

        let text = String(decoding: metrics.render(), as: UTF8.self)
        #expect(Self.sample(text, "runway_app_state{app=\"com.example.app1\",state=\"active\"}") == 1, "\(text)")
        // One series per app: the state it is not in has none.
        #expect(Self.sample(text, "runway_app_state{app=\"com.example.app1\",state=\"notRunning\"}") == nil, "\(text)")
        #expect(Self.sample(text, "runway_app_state{app=\"com.example.late\",state=\"notRunning\"}") == 1, "\(text)")
        #expect(Self.sample(text, "runway_apps") == 4, "\(text)")
        #expect(Self.sample(text, "runway_apps_in_state{state=\"active\"}") == 1, "\(text)")
        #expect(Self.sample(text, "runway_apps_in_state{state=\"notRunning\"}") == 3, "\(text)")
        #expect(Self.lines(Array(text.utf8), containing: "{app=\"") == 4, "\(text)")
        try Self.promtoolCheck(text)
        await scheduler.shutdown()
    }

    @Test func theAllLevelAddsSixSeriesPerEmbeddedAppStillWithoutRegistering() async throws {
        let count = 1_000
        let scheduler = try Self.scheduler(apps: count)
        let metrics = DaemonMetrics(perApp: .all)
        metrics.attach(scheduler)
        try scheduler.perform(.launch, on: "com.example.app7")
        try waitUntil("app7 active") {
            scheduler.status().first { $0.app == "com.example.app7" }?.state == .active
        }
        let before = metrics.factory.lookups.count
        let body = metrics.render()
        #expect(metrics.factory.lookups.count - before <= 2)
        // State, tasks, crash loop and the three counters; no containment for an embedded app.
        #expect(Self.lines(body, containing: "{app=\"") == 6 * count)
        #expect(Self.lines(body, containing: "runway_app_contained{") == 0)
        let text = String(decoding: body, as: UTF8.self)
        #expect(Self.sample(text, "runway_app_background_tasks{app=\"com.example.app7\"}") == 0)
        #expect(Self.sample(text, "runway_app_crash_looping{app=\"com.example.app7\"}") == 0)
        #expect(Self.sample(text, "runway_app_restarts_total{app=\"com.example.app7\"}") == 0)
        try Self.promtoolCheck(text)
        await scheduler.shutdown()
    }
}
