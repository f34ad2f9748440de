import Foundation
import RunwayConfig
@_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses
import RunwayTestKit
import Testing

@Suite("C1: every key maps to its value")
struct KeyMappingTests {
    @Test func C1_missingRunwayPlistGivesTheDefaults() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.settings == SchedulerSettings())
        #expect(configuration.daemon == DaemonSettings())
        #expect(configuration.apps.isEmpty)
        #expect(configuration.warnings.isEmpty)
    }

    @Test func C1_everyRunwayKeyMapsToItsSetting() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        // Integers and reals are both accepted for durations and percentages.
        try config.write(
            "Runway.plist",
            plistXML(
                """
                <key>BackgroundTimeBudget</key><real>12.5</real>
                <key>ExpirationWarningLead</key><integer>4</integer>
                <key>BackgroundEntryGrace</key><real>0</real>
                <key>TerminationGrace</key><real>0.25</real>
                <key>OverrunPolicy</key><string>suspend</string>
                <key>SuspensionMechanism</key><string>signal</string>
                <key>ExitsOnSuspendStyle</key><string>immediate</string>
                <key>LockBehavior</key><string>modern</string>
                <key>BudgetRefillPolicy</key><string>fullEachPeriod</string>
                <key>NotificationQueueLimit</key><integer>8</integer>
                <key>ControlSocket</key><string>/run/test/runway.sock</string>
                <key>MemoryPressureSource</key><string>rss</string>
                <key>MemoryWarningPressure</key><integer>20</integer>
                <key>MemoryCriticalPressure</key><real>55.5</real>
                <key>RSSCeilingBytes</key><integer>1073741824</integer>
                <key>MemoryPollInterval</key><real>0.5</real>
                <key>LoopRealtimePriority</key><integer>20</integer>
                <key>LoopWakeupSpin</key><real>0.00005</real>
                """
            )
        )

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.warnings == [])
        #expect(
            configuration.settings
                == SchedulerSettings(
                    backgroundTimeBudget: .milliseconds(12_500),
                    expirationWarningLead: .seconds(4),
                    backgroundEntryGrace: .zero,
                    terminationGrace: .milliseconds(250),
                    overrunPolicy: .suspend,
                    exitsOnSuspendStyle: .immediate,
                    budgetRefillPolicy: .fullEachPeriod,
                    notificationQueueLimit: 8,
                    lockBehavior: .modern
                )
        )
        #expect(
            configuration.daemon
                == DaemonSettings(
                    controlSocketPath: "/run/test/runway.sock",
                    memoryPressureSource: .rss,
                    memoryWarningPressure: 20,
                    memoryCriticalPressure: 55.5,
                    rssCeilingBytes: 1 << 30,
                    memoryPollInterval: .milliseconds(500),
                    loopRealtimePriority: 20,
                    loopWakeupSpin: .microseconds(50),
                    suspensionMechanism: .signal
                )
        )
    }

    @Test func C1_everyAppKeyMapsToItsDescriptorField() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write(
            "Apps/api.plist",
            plistXML(
                """
                <key>CFBundleIdentifier</key><string>com.example.api-server</string>
                <key>ProgramArguments</key>
                <array><string>/usr/bin/env</string><string></string><string>serve</string></array>
                <key>EnvironmentVariables</key>
                <dict><key>PORT</key><string>8080</string><key>EMPTY</key><string></string></dict>
                <key>WorkingDirectory</key><string>/srv/api</string>
                <key>UIApplicationExitsOnSuspend</key><true/>
                <key>ExitsOnSuspendStyle</key><string>immediate</string>
                <key>LockBehavior</key><string>modern</string>
                <key>RunwayBackgroundTimeBudget</key><integer>7</integer>
                <key>RunwayProtocol</key><integer>1</integer>
                """
            )
        )

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.warnings == [])
        #expect(
            configuration.apps == [
                ConfiguredApp(
                    descriptor: AppDescriptor(
                        id: "com.example.api-server",
                        kind: .process(
                            ProcessSpec(
                                arguments: ["/usr/bin/env", "", "serve"],
                                environment: ["PORT": "8080", "EMPTY": ""],
                                workingDirectory: "/srv/api",
                                speaksProtocol: true
                            )
                        ),
                        exitsOnSuspend: true,
                        exitsOnSuspendStyle: .immediate,
                        lockBehavior: .modern,
                        backgroundModes: [],
                        backgroundTimeBudget: .seconds(7)
                    ),
                    file: file
                )
            ]
        )
        #expect(configuration.apps.first?.descriptor.awaitsMessages == true)
    }

    @Test func C1_appWithoutProgramArgumentsIsEmbedded() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write(
            "Apps/widget.plist",
            plistXML(
                """
                <key>CFBundleIdentifier</key><string>com.example.widget</string>
                <key>UIBackgroundModes</key><array><string>fetch</string><string>location</string></array>
                """
            )
        )

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(
            configuration.apps.map(\.descriptor) == [
                AppDescriptor(id: "com.example.widget", kind: .embedded, backgroundModes: ["fetch", "location"])
            ]
        )
        #expect(configuration.warnings == [])
    }

    @Test func C1_usualInfoPlistKeysAreNotWarnedAbout() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp(
            "notes",
            identifier: "com.example.notes",
            """
            <key>CFBundleName</key><string>Notes</string>
            <key>CFBundleDisplayName</key><string>Notes</string>
            <key>CFBundleVersion</key><string>42</string>
            <key>CFBundleShortVersionString</key><string>1.2.3</string>
            <key>CFBundleExecutable</key><string>notes</string>
            """
        )

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.warnings == [])
        #expect(configuration.apps.map(\.descriptor.id) == ["com.example.notes"])
    }

    @Test func C1_appsAreSortedByIdentifierNotFileName() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("a", identifier: "org.example.zeta")
        try config.writeApp("b", identifier: "com.example.alpha")

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.apps.map(\.descriptor.id) == ["com.example.alpha", "org.example.zeta"])
        #expect(configuration.apps.map(\.file) == [config.path + "/Apps/b.plist", config.path + "/Apps/a.plist"])
    }

    @Test func C1_defaultControlSocketPathDependsOnTheUser() {
        #expect(DaemonSettings.defaultControlSocketPath(uid: 0) == "/run/runway/control.sock")
        // A directory of its own, never a socket directly in /tmp (more in FileKindTests).
        #expect(
            DaemonSettings.defaultControlSocketPath(uid: 1000, runtimeDirectory: nil) == "/tmp/runway-1000/control.sock"
        )
    }

    @Test func C2_binaryPropertyListLoadsLikeXML() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let settings: [String: Any] = ["BackgroundTimeBudget": 7.5, "OverrunPolicy": "suspend"]
        let app: [String: Any] = [
            "CFBundleIdentifier": "com.example.binary",
            "ProgramArguments": ["/bin/true"],
            "UIBackgroundModes": ["audio"],
        ]
        try config.write(
            "Runway.plist",
            PropertyListSerialization.data(fromPropertyList: settings, format: .binary, options: 0)
        )
        try config.write(
            "Apps/binary.plist",
            PropertyListSerialization.data(fromPropertyList: app, format: .binary, options: 0)
        )

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.settings.backgroundTimeBudget == .milliseconds(7_500))
        #expect(configuration.settings.overrunPolicy == .suspend)
        #expect(
            configuration.apps.map(\.descriptor) == [
                AppDescriptor(
                    id: "com.example.binary",
                    kind: .process(ProcessSpec(arguments: ["/bin/true"])),
                    backgroundModes: ["audio"]
                )
            ]
        )
        #expect(configuration.warnings == [])
    }
}
