@_spi(Processes) import Runway
import RunwayConfig
@_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses
import RunwayTestKit
import Testing

@testable import RunwayControl

/// C1 and P3: the daemon's memory pressure keys reach the core's policy (thresholds) and the sampler (source,
/// poll interval).
@Suite struct MemoryPressureConfigTests {
    @Test func P3_thresholdKeysBecomeTheSchedulersPolicy() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write(
            "Runway.plist",
            plistXML(
                """
                <key>MemoryWarningPressure</key><integer>20</integer>
                <key>MemoryCriticalPressure</key><real>55.5</real>
                <key>MemoryPollInterval</key><real>0.5</real>
                """
            )
        )
        let configuration = try ConfigLoader.load(directory: config.path)

        let settings = schedulerSettings(for: configuration)
        #expect(settings.memoryPressure == MemoryPressurePolicy(warningPercent: 20, criticalPercent: 55.5))
        var others = settings
        others.memoryPressure = MemoryPressurePolicy()
        #expect(others == configuration.settings)
        #expect(
            processOptions(for: configuration).memoryPressure
                == MemoryPressureOptions(
                    source: .psi(path: "/proc/pressure/memory"),
                    pollInterval: .milliseconds(500)
                )
        )
    }

    @Test func P3_rssAndOffSourcesMapToTheSampler() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write(
            "Runway.plist",
            plistXML(
                """
                <key>MemoryPressureSource</key><string>rss</string>
                <key>RSSCeilingBytes</key><integer>1073741824</integer>
                """
            )
        )
        let rss = try ConfigLoader.load(directory: config.path)
        #expect(processOptions(for: rss).memoryPressure == MemoryPressureOptions(source: .rss(ceilingBytes: 1 << 30)))
        #expect(schedulerSettings(for: rss).memoryPressure == MemoryPressurePolicy())

        try config.write("Runway.plist", plistXML("<key>MemoryPressureSource</key><string>off</string>"))
        #expect(processOptions(for: try ConfigLoader.load(directory: config.path)).memoryPressure == nil)
    }
}
