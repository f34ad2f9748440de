import RunwayConfig
import RunwayCore
import RunwayTestKit
import Testing

/// The daemon's holding limits in `Runway.plist` (C1, C2): `TaskLimitPerApp`, `TaskNameByteLimit`, `ControlClientLimit`
/// and `ControlQueueByteLimit`, each with a default and bounds of its own.
@Suite struct LimitKeyTests {
    @Test func C1_limitKeysMapToTheirSettings() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write(
            "Runway.plist",
            plistXML(
                """
                <key>TaskLimitPerApp</key><integer>20</integer>
                <key>TaskNameByteLimit</key><integer>64</integer>
                <key>ControlClientLimit</key><integer>8</integer>
                <key>ControlQueueByteLimit</key><integer>65536</integer>
                """
            )
        )

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.warnings == [])
        #expect(configuration.settings == SchedulerSettings(taskLimitPerApp: 20, taskNameByteLimit: 64))
        #expect(configuration.daemon.controlClientLimit == 8)
        #expect(configuration.daemon.controlQueueByteLimit == 65_536)
    }

    @Test func C1_limitKeysDefaultTo1000Tasks256Bytes64ClientsAnd4MiB() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write("Runway.plist", plistXML(""))

        let configuration = try ConfigLoader.load(directory: config.path)

        #expect(configuration.settings.taskLimitPerApp == 1_000)
        #expect(configuration.settings.taskNameByteLimit == 256)
        #expect(configuration.daemon.controlClientLimit == 64)
        #expect(configuration.daemon.controlQueueByteLimit == 4_194_304)
    }

    @Test(arguments: [
        ("TaskLimitPerApp", "<integer>0</integer>", "integer 0", "an integer from 1 to 100000"),
        ("TaskLimitPerApp", "<integer>100001</integer>", "integer 100001", "an integer from 1 to 100000"),
        ("TaskLimitPerApp", "<real>2.5</real>", "real 2.5", "an integer from 1 to 100000"),
        ("TaskNameByteLimit", "<integer>0</integer>", "integer 0", "an integer number of bytes from 1 to 4096"),
        ("TaskNameByteLimit", "<integer>4097</integer>", "integer 4097", "an integer number of bytes from 1 to 4096"),
        ("ControlClientLimit", "<integer>0</integer>", "integer 0", "an integer from 1 to 1024"),
        ("ControlClientLimit", "<integer>1025</integer>", "integer 1025", "an integer from 1 to 1024"),
        (
            "ControlQueueByteLimit", "<integer>65535</integer>", "integer 65535",
            "an integer number of bytes from 65536 to 1073741824"
        ),
        (
            "ControlQueueByteLimit", "<integer>1073741825</integer>", "integer 1073741825",
            "an integer number of bytes from 65536 to 1073741824"
        ),
    ])
    func C2_limitOutOfItsBoundsIsRejectedNamingTheKeyAndTheBounds(
        key: String,
        value: String,
        found: String,
        expected: String
    ) throws {
        try expectRunwayPlistValueRejected(key: key, value: value, found: found, expected: expected)
    }
}
