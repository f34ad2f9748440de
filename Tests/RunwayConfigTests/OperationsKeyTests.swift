import RunwayConfig
import RunwayCore
import RunwayTestKit
import Testing

/// The keys of the daemon's metrics endpoint and log in `Runway.plist` (Docs/Operations.md): `MetricsAddress`,
/// its three limits, `LogLevel`, `LogFormat` and `MetricsPerApp`.
@Suite struct OperationsKeyTests {
    @Test func operationsKeysMapToTheirSettings() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write(
            "Runway.plist",
            plistXML(
                """
                <key>MetricsAddress</key><string>[::1]:9477</string>
                <key>MetricsConnectionLimit</key><integer>4</integer>
                <key>MetricsPeerConnectionLimit</key><integer>2</integer>
                <key>MetricsRequestByteLimit</key><integer>2048</integer>
                <key>MetricsIdleTimeout</key><real>2.5</real>
                <key>LogLevel</key><string>debug</string>
                <key>LogFormat</key><string>json</string>
                <key>MetricsPerApp</key><string>all</string>
                """
            )
        )
        let configuration = try ConfigLoader.load(directory: config.path)
        #expect(configuration.warnings == [])
        #expect(
            configuration.daemon.operations
                == OperationsSettings(
                    metricsAddress: MetricsAddress(host: "::1", port: 9_477),
                    metricsConnectionLimit: 4,
                    metricsPeerConnectionLimit: 2,
                    metricsRequestByteLimit: 2_048,
                    metricsIdleTimeout: .milliseconds(2_500),
                    logLevel: .debug,
                    logFormat: .json,
                    metricsPerApp: .all
                )
        )
    }

    @Test func metricsAreOffAndTheLimitsHaveTheirDefaultsWithoutTheKeys() throws {
        let config = try TemporaryConfig()
        defer { config.remove() }
        try config.write("Runway.plist", plistXML(""))
        let operations = try ConfigLoader.load(directory: config.path).daemon.operations
        #expect(operations.metricsAddress == nil)
        #expect(operations.metricsConnectionLimit == 16)
        #expect(operations.metricsPeerConnectionLimit == 8)
        #expect(operations.metricsRequestByteLimit == 8_192)
        #expect(operations.metricsIdleTimeout == .seconds(Int64(10)))
        #expect(operations.logLevel == nil)
        #expect(operations.logFormat == .text)
        #expect(operations.metricsPerApp == .state)
    }

    @Test(arguments: [
        ("9477", "127.0.0.1:9477"),
        ("0", "127.0.0.1:0"),
        ("0.0.0.0:9477", "0.0.0.0:9477"),
        ("localhost:80", "localhost:80"),
        ("[::]:9477", "[::]:9477"),
    ])
    func metricsAddressForms(text: String, parsed: String) {
        #expect(MetricsAddress(parsing: text)?.description == parsed)
    }

    @Test(arguments: [":9477", "host:", "host:65536", "host:http", "::1:9477", "[::1]", "[]:80", "a b:80", "-1", ""])
    func metricsAddressRejects(text: String) {
        #expect(MetricsAddress(parsing: text) == nil)
    }

    @Test(arguments: [
        ("MetricsAddress", "<string>:9477</string>", "string \":9477\"", "HOST:PORT, [IPV6]:PORT or PORT"),
        ("MetricsAddress", "<integer>9477</integer>", "integer 9477", "a string HOST:PORT"),
        ("MetricsConnectionLimit", "<integer>0</integer>", "integer 0", "an integer from 1 to 1024"),
        ("MetricsPeerConnectionLimit", "<integer>1025</integer>", "integer 1025", "an integer from 1 to 1024"),
        ("MetricsRequestByteLimit", "<integer>1023</integer>", "integer 1023", "from 1024 to 1048576"),
        ("MetricsIdleTimeout", "<real>0</real>", "real 0.0", "a number of seconds > 0 and at most 3600"),
        ("MetricsIdleTimeout", "<integer>3601</integer>", "integer 3601", "at most 3600"),
        ("LogLevel", "<string>verbose</string>", "string \"verbose\"", "one of \"trace\", \"debug\", \"info\""),
        ("LogFormat", "<string>JSON</string>", "string \"JSON\"", "one of \"text\", \"json\""),
        ("MetricsPerApp", "<string>every</string>", "string \"every\"", "one of \"state\", \"all\""),
    ])
    func aBadValueIsRejectedNamingTheKeyAndWhatIsExpected(
        key: String,
        value: String,
        found: String,
        expected: String
    ) throws {
        let code: ConfigError.Code = value.hasPrefix("<integer>9477") ? .wrongType : .invalidValue
        try expectRunwayPlistValueRejected(key: key, value: value, found: found, expected: expected, code: code)
    }
}
