import RunwayConfig
import RunwayCore
import RunwayTestKit
import Testing

/// The background wake-up keys (W2, W5; C1, C2): `BackgroundWakeBudget`, `BackgroundWakeLimitPerApp`,
/// `BackgroundWakePayloadByteLimit` in `Runway.plist` and `RunwayBackgroundWakeBudget` in an app's Info.plist.
@Suite struct WakeKeyTests {
    @Test func C1_wakeKeysMapToTheirSettingsAndDefault() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write(
            "Runway.plist",
            plistXML(
                """
                <key>BackgroundWakeBudget</key><real>12.5</real>
                <key>BackgroundWakeLimitPerApp</key><integer>3</integer>
                <key>BackgroundWakePayloadByteLimit</key><integer>100</integer>
                """
            )
        )
        try config.writeApp(
            "a.plist",
            identifier: "com.example.a",
            "<key>RunwayBackgroundWakeBudget</key><integer>7</integer>"
        )

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.warnings == [])
        #expect(
            configuration.settings
                == SchedulerSettings(
                    backgroundWakeBudget: .milliseconds(12_500),
                    backgroundWakeLimitPerApp: 3,
                    backgroundWakePayloadByteLimit: 100
                )
        )
        #expect(configuration.apps.first?.descriptor.backgroundWakeBudget == .seconds(7))

        try config.write("Runway.plist", plistXML(""))
        let defaults = try ConfigLoader.load(directory: config.path).settings
        #expect(defaults.backgroundWakeBudget == .seconds(30))
        #expect(defaults.backgroundWakeLimitPerApp == 16)
        #expect(defaults.backgroundWakePayloadByteLimit == 4_096)
    }

    @Test func C1_refreshMinimumIntervalMapsToItsSetting() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write("Runway.plist", plistXML("<key>RefreshMinimumInterval</key><integer>60</integer>"))
        let configuration = try ConfigLoader.load(directory: config.path)
        #expect(configuration.warnings == [])
        #expect(configuration.settings.refreshMinimumInterval == .seconds(60))
    }

    @Test(arguments: [
        ("BackgroundWakeLimitPerApp", "<integer>0</integer>", "integer 0", "an integer from 1 to 1024"),
        ("BackgroundWakeLimitPerApp", "<integer>1025</integer>", "integer 1025", "an integer from 1 to 1024"),
        (
            "BackgroundWakePayloadByteLimit", "<integer>0</integer>", "integer 0",
            "an integer number of bytes from 1 to 8192"
        ),
        (
            "BackgroundWakePayloadByteLimit", "<integer>8193</integer>", "integer 8193",
            "an integer number of bytes from 1 to 8192"
        ),
        ("BackgroundWakeBudget", "<real>-1</real>", "real -1.0", "seconds"),
        ("RefreshMinimumInterval", "<real>-0.5</real>", "real -0.5", "seconds"),
    ])
    func C2_aWakeKeyOutOfItsBoundsIsRejectedNamingTheKey(
        key: String,
        value: String,
        found: String,
        expected: String
    ) throws {
        try expectRunwayPlistValueRejected(key: key, value: value, found: found, expected: expected)
    }
}
