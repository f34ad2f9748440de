import Foundation
import RunwayConfig
import RunwayCore
import RunwayProcesses
import RunwayTestKit
import Testing

@Suite("C2: bad values name the file, the key path, what was found and what was expected")
struct BadValueTests {
    static let seconds = "a finite number of seconds >= 0 (real or integer)"

    @Test func C2_stringForADurationIsAWrongType() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", plistXML("<key>BackgroundTimeBudget</key><string>thirty</string>"))

        let error = loadError(config.path)

        expectError(
            error,
            code: .wrongType,
            file: file,
            keyPath: "BackgroundTimeBudget",
            found: "string \"thirty\"",
            expectedContains: Self.seconds
        )
        #expect(
            error?.description == "\(file): BackgroundTimeBudget: expected \(Self.seconds), found string \"thirty\""
        )
    }

    @Test func C2_numberInBackgroundModesNamesTheIndex() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp(
            "player",
            identifier: "com.example.player",
            """
            <key>UIBackgroundModes</key><array><string>audio</string><integer>7</integer></array>
            """
        )

        expectError(
            loadError(config.path),
            code: .wrongType,
            file: file,
            keyPath: "UIBackgroundModes[1]",
            found: "integer 7",
            expectedContains: "a background mode name"
        )
    }

    @Test func C2_stringForAnArrayIsAWrongType() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write(
            "Apps/x.plist",
            plistXML(
                """
                <key>CFBundleIdentifier</key><string>com.example.x</string>
                <key>ProgramArguments</key><string>/bin/true --flag</string>
                """
            )
        )

        expectError(
            loadError(config.path),
            code: .wrongType,
            file: file,
            keyPath: "ProgramArguments",
            found: "string \"/bin/true --flag\"",
            expectedContains: "a non-empty array of strings"
        )
    }

    @Test func C2_nonStringEnvironmentValueNamesTheVariable() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp(
            "api",
            identifier: "com.example.api",
            """
            <key>EnvironmentVariables</key><dict><key>PORT</key><integer>8080</integer></dict>
            """
        )

        expectError(
            loadError(config.path),
            code: .wrongType,
            file: file,
            keyPath: "EnvironmentVariables.PORT",
            found: "integer 8080",
            expectedContains: "a string"
        )
    }

    @Test func C2_environmentVariableNameWithEqualsSignIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp(
            "api",
            identifier: "com.example.api",
            """
            <key>EnvironmentVariables</key><dict><key>A=B</key><string>x</string></dict>
            """
        )

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "EnvironmentVariables.A=B",
            found: "the name \"A=B\"",
            expectedContains: "without '='"
        )
    }

    @Test func C2_booleanGivenAsIntegerIsAWrongType() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp(
            "x",
            identifier: "com.example.x",
            """
            <key>UIApplicationExitsOnSuspend</key><integer>1</integer>
            """
        )

        expectError(
            loadError(config.path),
            code: .wrongType,
            file: file,
            keyPath: "UIApplicationExitsOnSuspend",
            found: "integer 1",
            expectedContains: "a boolean"
        )
    }

    @Test func C2_missingBundleIdentifierIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write(
            "Apps/anonymous.plist",
            plistXML(
                """
                <key>ProgramArguments</key><array><string>/bin/true</string></array>
                """
            )
        )

        expectError(
            loadError(config.path),
            code: .missingValue,
            file: file,
            keyPath: "CFBundleIdentifier",
            found: "nothing",
            expectedContains: "a reverse-DNS bundle identifier"
        )
    }

    @Test(arguments: [
        "notes", "", "com..notes", ".com.notes", "com.notes.", "com.ex ample.notes", "com.exämple.notes",
        "com.example_notes.app", "com.example.notes/../x", String(repeating: "a.", count: 128) + "b",
    ])
    func C2_badReverseDNSIdentifierIsRejected(identifier: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp("app", identifier: identifier)

        let error = loadError(config.path)

        #expect(error?.code == .invalidValue)
        #expect(error?.file == file)
        #expect(error?.keyPath == "CFBundleIdentifier")
        #expect(error?.found?.hasPrefix("string \"") == true)
        #expect(error?.expected.contains("two or more dot-separated non-empty components") == true)
        expectDescriptionShowsParts(error)
    }

    @Test(arguments: [
        ("cgroup.kill", "\"cgroup.\""), ("cgroup.freeze", "\"cgroup.\""), ("memory.max", "\"memory.\""),
        ("pids.max", "\"pids.\""), ("cpu.weight", "\"cpu.\""), ("io.max", "\"io.\""),
        ("cpuset.cpus", "\"cpuset.\""), ("hugetlb.x", "\"hugetlb.\""), ("rdma.max", "\"rdma.\""),
        ("misc.max", "\"misc.\""),
    ])
    func C2_identifierThatNamesACgroupFileIsRejected(identifier: String, prefix: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp("app", identifier: identifier)

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "CFBundleIdentifier",
            found: "string \"\(identifier)\"",
            expectedContains: "a name starting with \(prefix) names a cgroup's own files"
        )
    }

    @Test(arguments: ["com.example", "com.example.notes", "COM.Example.Notes-2", "a.b", "1.2.3"])
    func C2_wellFormedReverseDNSIdentifierIsAccepted(identifier: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.writeApp("app", identifier: identifier)

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.apps.map(\.descriptor.id) == [AppID(identifier)])
    }

    @Test(arguments: [
        ("Runway.plist", "TerminationGrace", "<real>-3</real>", "real -3.0"),
        ("Runway.plist", "BackgroundEntryGrace", "<integer>-1</integer>", "integer -1"),
        ("Apps/x.plist", "RunwayBackgroundTimeBudget", "<real>-0.001</real>", "real -0.001"),
    ])
    func C2_negativeDurationIsRejected(file name: String, key: String, value: String, found: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let keys = name == "Runway.plist" ? "" : appKeys(identifier: "com.example.x")
        let file = try config.write(name, plistXML(keys + "<key>\(key)</key>\(value)"))

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: key,
            found: found,
            expectedContains: Self.seconds
        )
    }

    @Test(arguments: [("nan", "real nan"), ("inf", "real inf"), ("-inf", "real -inf")])
    func C2_nonFiniteDurationIsRejected(value: String, found: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", plistXML("<key>ExpirationWarningLead</key><real>\(value)</real>"))

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "ExpirationWarningLead",
            found: found,
            expectedContains: Self.seconds
        )
    }

    @Test func C2_nonFiniteDurationInABinaryPlistIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let app: [String: Any] = [
            "CFBundleIdentifier": "com.example.x", "ProgramArguments": ["/bin/true"],
            "RunwayBackgroundTimeBudget": Double.infinity,
        ]
        let file = try config.write(
            "Apps/x.plist",
            PropertyListSerialization.data(fromPropertyList: app, format: .binary, options: 0)
        )

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "RunwayBackgroundTimeBudget",
            found: "real inf",
            expectedContains: Self.seconds
        )
    }

    @Test func C2_zeroPollIntervalIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", plistXML("<key>MemoryPollInterval</key><integer>0</integer>"))

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "MemoryPollInterval",
            found: "integer 0",
            expectedContains: "a finite number of seconds > 0"
        )
    }

    @Test(arguments: [
        ("OverrunPolicy", "explode", #"one of "terminate", "suspend""#),
        ("SuspensionMechanism", "cgroup", #"one of "auto", "freezer", "signal""#),
        ("ExitsOnSuspendStyle", "Drain", #"one of "drain", "immediate""#),
        ("LockBehavior", "iOS5", #"one of "classic", "modern""#),
        ("BudgetRefillPolicy", "carryOver", #"one of "fullEachPeriod""#),
        ("MemoryPressureSource", "swap", #"one of "psi", "rss", "off""#),
    ])
    func C2_unknownEnumValueNamesTheAllowedValues(key: String, value: String, allowed: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", plistXML("<key>\(key)</key><string>\(value)</string>"))

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: key,
            found: "string \"\(value)\"",
            expectedContains: allowed
        )
    }

    @Test func C2_unknownLockBehaviorInAnAppFileNamesTheFileTheKeyAndTheAllowedValues() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp(
            "notes",
            identifier: "com.example.notes",
            "<key>LockBehavior</key><string>Modern</string>"
        )

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "LockBehavior",
            found: "string \"Modern\"",
            expectedContains: #"one of "classic", "modern""#
        )
    }

    @Test func C2_runwayProtocolWithoutProgramArgumentsIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write(
            "Apps/embedded.plist",
            plistXML(
                """
                <key>CFBundleIdentifier</key><string>com.example.embedded</string>
                <key>RunwayProtocol</key><integer>1</integer>
                """
            )
        )

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "RunwayProtocol",
            found: "integer 1",
            expectedContains: "RunwayProtocol only on a process app (one with ProgramArguments)"
        )
    }

    @Test(arguments: [("<integer>2</integer>", "integer 2"), ("<true/>", "boolean true")])
    func C2_unsupportedRunwayProtocolIsRejected(value: String, found: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp("x", identifier: "com.example.x", "<key>RunwayProtocol</key>\(value)")

        let error = loadError(config.path)

        #expect(error?.file == file)
        #expect(error?.keyPath == "RunwayProtocol")
        #expect(error?.found == found)
        #expect(error?.expected == "the integer 1 (the only protocol version)")
        expectDescriptionShowsParts(error)
    }

    @Test func C2_emptyProgramArgumentsIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write(
            "Apps/x.plist",
            plistXML(
                """
                <key>CFBundleIdentifier</key><string>com.example.x</string>
                <key>ProgramArguments</key><array/>
                """
            )
        )

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "ProgramArguments",
            found: "array of 0 elements",
            expectedContains: "a non-empty array of strings"
        )
    }

    @Test func C2_emptyProgramIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write(
            "Apps/x.plist",
            plistXML(
                """
                <key>CFBundleIdentifier</key><string>com.example.x</string>
                <key>ProgramArguments</key><array><string></string><string>-v</string></array>
                """
            )
        )

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "ProgramArguments[0]",
            found: "string \"\"",
            expectedContains: "the first one non-empty"
        )
    }

    @Test func C2_relativeWorkingDirectoryIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp(
            "x",
            identifier: "com.example.x",
            "<key>WorkingDirectory</key><string>srv</string>"
        )

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "WorkingDirectory",
            found: "string \"srv\"",
            expectedContains: "an absolute path"
        )
    }

    @Test func C2_backgroundModesOnAnAppThatExitsOnSuspendIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.writeApp(
            "x",
            identifier: "com.example.x",
            """
            <key>UIApplicationExitsOnSuspend</key><true/>
            <key>UIBackgroundModes</key><array><string>audio</string></array>
            """
        )

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "UIBackgroundModes",
            found: "array of 1 element",
            expectedContains: "no UIBackgroundModes on an app with UIApplicationExitsOnSuspend"
        )
    }

    @Test func C2_criticalPressureBelowWarningIsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write(
            "Runway.plist",
            plistXML(
                """
                <key>MemoryWarningPressure</key><real>40</real>
                <key>MemoryCriticalPressure</key><real>20</real>
                """
            )
        )

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "MemoryCriticalPressure",
            found: "real 20.0",
            expectedContains: "a percentage from MemoryWarningPressure (40.0) to 100"
        )
    }

    @Test func C2_warningPressureAboveTheDefaultCriticalNeedsACriticalValue() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", plistXML("<key>MemoryWarningPressure</key><integer>50</integer>"))

        expectError(
            loadError(config.path),
            code: .missingValue,
            file: file,
            keyPath: "MemoryCriticalPressure",
            found: "nothing (the default 30 is below MemoryWarningPressure)",
            expectedContains: "a percentage from MemoryWarningPressure (50.0) to 100"
        )
    }

    @Test func C2_pressureAbove100IsRejected() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", plistXML("<key>MemoryWarningPressure</key><real>100.5</real>"))

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "MemoryWarningPressure",
            found: "real 100.5",
            expectedContains: "a percentage from 0 to 100"
        )
    }

    @Test func C2_rssSourceRequiresACeiling() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", plistXML("<key>MemoryPressureSource</key><string>rss</string>"))

        expectError(
            loadError(config.path),
            code: .missingValue,
            file: file,
            keyPath: "RSSCeilingBytes",
            found: "nothing",
            expectedContains: "required when MemoryPressureSource is \"rss\""
        )
    }

    @Test(arguments: [("<integer>0</integer>", "integer 0"), ("<integer>-5</integer>", "integer -5")])
    func C2_nonPositiveRSSCeilingIsRejected(value: String, found: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write(
            "Runway.plist",
            plistXML(
                """
                <key>MemoryPressureSource</key><string>rss</string>
                <key>RSSCeilingBytes</key>\(value)
                """
            )
        )

        let error = loadError(config.path)

        #expect(error?.file == file)
        #expect(error?.keyPath == "RSSCeilingBytes")
        #expect(error?.found == found)
        #expect(error?.expected == "a positive integer number of bytes")
        expectDescriptionShowsParts(error)
    }

    @Test(arguments: [
        ("<integer>0</integer>", "integer 0"), ("<integer>65537</integer>", "integer 65537"),
        ("<real>2.5</real>", "real 2.5"),
    ])
    func C2_notificationQueueLimitOutOfRangeIsRejected(value: String, found: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", plistXML("<key>NotificationQueueLimit</key>\(value)"))

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: "NotificationQueueLimit",
            found: found,
            expectedContains: "an integer from 1 to 65536"
        )
    }

    /// The loop options: `LoopRealtimePriority` within 1...99, `LoopWakeupSpin` within 0 ... 1 ms.
    @Test(arguments: [
        (
            "LoopRealtimePriority", "<integer>0</integer>", "integer 0",
            "an integer from 1 to 99 (a SCHED_FIFO priority)"
        ),
        (
            "LoopRealtimePriority", "<integer>100</integer>", "integer 100",
            "an integer from 1 to 99 (a SCHED_FIFO priority)"
        ),
        ("LoopRealtimePriority", "<real>10.5</real>", "real 10.5", "an integer from 1 to 99 (a SCHED_FIFO priority)"),
        ("LoopWakeupSpin", "<real>0.002</real>", "real 0.002", "a number of seconds from 0 to 0.001"),
        ("LoopWakeupSpin", "<real>-0.00001</real>", "real -1e-05", "a number of seconds from 0 to 0.001"),
    ])
    func loopOptionsOutOfRangeAreRejected(key: String, value: String, found: String, expected: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", plistXML("<key>\(key)</key>\(value)"))

        expectError(
            loadError(config.path),
            code: .invalidValue,
            file: file,
            keyPath: key,
            found: found,
            expectedContains: expected
        )
    }

    @Test(arguments: ["run/runway.sock", "", "/tmp/" + String(repeating: "s", count: 120) + ".sock"])
    func C2_controlSocketMustBeAShortAbsolutePath(path: String) throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        let file = try config.write("Runway.plist", plistXML("<key>ControlSocket</key><string>\(path)</string>"))

        let error = loadError(config.path)

        #expect(error?.code == .invalidValue)
        #expect(error?.file == file)
        #expect(error?.keyPath == "ControlSocket")
        #expect(error?.found?.hasPrefix("string \"") == true)
        #expect(error?.expected.hasPrefix("an absolute path of at most") == true)
        expectDescriptionShowsParts(error)
    }
}
