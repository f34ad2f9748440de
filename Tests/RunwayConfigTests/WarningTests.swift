import RunwayConfig
import RunwayCore
import RunwayTestKit
import Testing

@Suite("C2: unknown keys and ignored values are warned about by name, and the config still loads")
struct WarningTests {
    @Test func C2_unknownKeysAreWarnedByNameAndTheConfigStillLoads() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let settings = try config.write(
            "Runway.plist",
            plistXML(
                """
                <key>BackgroundTimeBudget</key><real>8</real>
                <key>Verbose</key><true/>
                <key>backgroundEntryGrace</key><real>1</real>
                <key>UIBackgroundModes</key><array/>
                """
            )
        )
        let app = try config.writeApp(
            "notes",
            identifier: "com.example.notes",
            """
            <key>Colour</key><string>blue</string>
            <key>BackgroundTimeBudget</key><real>3</real>
            """
        )

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.settings.backgroundTimeBudget == .seconds(8))
        // The misspelt key does not apply.
        #expect(configuration.settings.backgroundEntryGrace == SchedulerSettings().backgroundEntryGrace)
        #expect(configuration.apps.map(\.descriptor.id) == ["com.example.notes"])
        #expect(configuration.apps.first?.descriptor.backgroundTimeBudget == nil)
        // Runway.plist first, then the apps; sorted by key path within a file.
        #expect(configuration.warnings.map(\.file) == [settings, settings, settings, app, app])
        #expect(
            configuration.warnings.map(\.keyPath) == [
                "UIBackgroundModes", "Verbose", "backgroundEntryGrace", "BackgroundTimeBudget", "Colour",
            ]
        )
        #expect(
            configuration.warnings.map(\.message) == [
                "unknown key, ignored; UIBackgroundModes belongs in an app Info.plist in Apps/",
                "unknown key, ignored",
                "unknown key, ignored; did you mean BackgroundEntryGrace? (keys are case-sensitive)",
                "unknown key, ignored; the per-app key is RunwayBackgroundTimeBudget",
                "unknown key, ignored",
            ]
        )
        #expect(configuration.warnings[1].description == "\(settings): Verbose: unknown key, ignored")
    }

    @Test func C2_theIssuesLockStyleIsWarnedAboutWithTheKeyThatExists() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let settings = try config.write("Runway.plist", plistXML("<key>LockStyle</key><string>modern</string>"))
        let app = try config.writeApp(
            "notes",
            identifier: "com.example.notes",
            "<key>LockStyle</key><string>modern</string>"
        )

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.settings.lockBehavior == .classic)
        #expect(configuration.apps.first?.descriptor.lockBehavior == nil)
        #expect(configuration.warnings.map(\.file) == [settings, app])
        #expect(configuration.warnings.map(\.keyPath) == ["LockStyle", "LockStyle"])
        #expect(configuration.warnings.allSatisfy { $0.message == "unknown key, ignored; the key is LockBehavior" })
    }

    @Test func C2_processKeysOnAnEmbeddedAppAreWarnedAsIgnored() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write(
            "Apps/widget.plist",
            plistXML(
                """
                <key>CFBundleIdentifier</key><string>com.example.widget</string>
                <key>EnvironmentVariables</key><dict><key>A</key><string>1</string></dict>
                <key>WorkingDirectory</key><string>/srv</string>
                """
            )
        )

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.apps.map(\.descriptor.kind) == [.embedded])
        #expect(configuration.warnings.map(\.file) == [file, file])
        #expect(configuration.warnings.map(\.keyPath) == ["EnvironmentVariables", "WorkingDirectory"])
        #expect(configuration.warnings.allSatisfy { $0.message.contains("no ProgramArguments") })
    }

    @Test func C2_valuesWithoutEffectAreWarnedAbout() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let settings = try config.write("Runway.plist", plistXML("<key>RSSCeilingBytes</key><integer>1000</integer>"))
        let app = try config.writeApp(
            "x",
            identifier: "com.example.x",
            """
            <key>ExitsOnSuspendStyle</key><string>immediate</string>
            <key>UIBackgroundModes</key><array><string>audio</string><string>audoi</string></array>
            <key>RunwayBackgroundTimeBudget</key><real>3</real>
            """
        )

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.daemon.rssCeilingBytes == 1000)
        #expect(configuration.apps.first?.descriptor.backgroundModes == ["audio", "audoi"])
        #expect(configuration.warnings.map(\.file) == [settings, app, app, app])
        #expect(
            configuration.warnings.map(\.keyPath) == [
                "RSSCeilingBytes", "ExitsOnSuspendStyle", "RunwayBackgroundTimeBudget", "UIBackgroundModes[1]",
            ]
        )
        #expect(configuration.warnings[0].message == "ignored: MemoryPressureSource is \"psi\", not \"rss\"")
        #expect(configuration.warnings[1].message == "ignored: UIApplicationExitsOnSuspend is not true")
        #expect(configuration.warnings[2].message.contains("without a budget (L7)"))
        #expect(configuration.warnings[3].message.hasPrefix("\"audoi\" is not a UIBackgroundModes value"))
    }
}
