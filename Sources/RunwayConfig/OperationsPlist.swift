import RunwayCore

/// The keys of `Runway.plist` for the daemon's metrics endpoint and log (`OperationsSettings`), decoded from the
/// same file as `RunwaySettingsPlist` after its own keys, and checked in this declaration order.
struct OperationsPlist: Decodable {
    var metricsAddress: String?
    var metricsConnectionLimit: Int?
    var metricsPeerConnectionLimit: Int?
    var metricsRequestByteLimit: Int?
    var metricsIdleTimeout: Double?
    var logLevel: String?
    var logFormat: String?
    var metricsPerApp: String?

    enum CodingKeys: String, CodingKey {
        case metricsAddress = "MetricsAddress"
        case metricsConnectionLimit = "MetricsConnectionLimit"
        case metricsPeerConnectionLimit = "MetricsPeerConnectionLimit"
        case metricsRequestByteLimit = "MetricsRequestByteLimit"
        case metricsIdleTimeout = "MetricsIdleTimeout"
        case logLevel = "LogLevel"
        case logFormat = "LogFormat"
        case metricsPerApp = "MetricsPerApp"
    }

    enum Key {
        static let metricsAddress = PlistKeySpec(
            CodingKeys.metricsAddress,
            expected: "a string " + MetricsAddress.expected
        )
        static let metricsConnectionLimit = PlistKeySpec(
            CodingKeys.metricsConnectionLimit,
            expected: "an integer from \(OperationsSettings.metricsConnectionLimits.lowerBound) to "
                + "\(OperationsSettings.metricsConnectionLimits.upperBound)"
        )
        static let metricsPeerConnectionLimit = PlistKeySpec(
            CodingKeys.metricsPeerConnectionLimit,
            expected: "an integer from \(OperationsSettings.metricsConnectionLimits.lowerBound) to "
                + "\(OperationsSettings.metricsConnectionLimits.upperBound)"
        )
        static let metricsRequestByteLimit = PlistKeySpec(
            CodingKeys.metricsRequestByteLimit,
            expected: "an integer number of bytes from \(OperationsSettings.metricsRequestByteLimits.lowerBound) to "
                + "\(OperationsSettings.metricsRequestByteLimits.upperBound)"
        )
        static let metricsIdleTimeout = PlistKeySpec(
            CodingKeys.metricsIdleTimeout,
            expected: "a number of seconds > 0 and at most \(OperationsSettings.metricsIdleTimeoutMaximumSeconds) "
                + "(real or integer)"
        )
        static let logLevel = PlistKeySpec(CodingKeys.logLevel, expected: Expected.oneOf(DaemonLogLevel.self))
        static let logFormat = PlistKeySpec(CodingKeys.logFormat, expected: Expected.oneOf(DaemonLogFormat.self))
        static let metricsPerApp = PlistKeySpec(CodingKeys.metricsPerApp, expected: Expected.oneOf(MetricsPerApp.self))
    }

    /// The specs, appended to `Runway.plist`'s schema so that these keys are known (not warned about).
    static let specs = [
        Key.metricsAddress, Key.metricsConnectionLimit, Key.metricsPeerConnectionLimit, Key.metricsRequestByteLimit,
        Key.metricsIdleTimeout, Key.logLevel, Key.logFormat, Key.metricsPerApp,
    ]

    /// Decodes and validates these keys of `file`.
    ///
    /// - Throws: The first problem, naming the file, the key and what was expected.
    static func load(_ file: PlistFile) throws(ConfigError) -> OperationsSettings {
        let schema = PlistSchema(fileKind: "Runway.plist", specs: specs)
        let plist = try file.decodeValue(OperationsPlist.self, schema: schema)
        var address: MetricsAddress?
        if let text = plist.metricsAddress {
            guard let parsed = MetricsAddress(parsing: text) else {
                throw file.error(at: .key(Key.metricsAddress.name), expected: Key.metricsAddress.expected)
            }
            address = parsed
        }
        if let limit = plist.metricsConnectionLimit, !OperationsSettings.metricsConnectionLimits.contains(limit) {
            throw file.error(at: .key(Key.metricsConnectionLimit.name), expected: Key.metricsConnectionLimit.expected)
        }
        if let limit = plist.metricsPeerConnectionLimit, !OperationsSettings.metricsConnectionLimits.contains(limit) {
            throw file.error(
                at: .key(Key.metricsPeerConnectionLimit.name),
                expected: Key.metricsPeerConnectionLimit.expected
            )
        }
        if let limit = plist.metricsRequestByteLimit, !OperationsSettings.metricsRequestByteLimits.contains(limit) {
            throw file.error(
                at: .key(Key.metricsRequestByteLimit.name),
                expected: Key.metricsRequestByteLimit.expected
            )
        }
        let idle = try file.seconds(plist.metricsIdleTimeout, key: Key.metricsIdleTimeout, positive: true)
        if let idle, idle > .seconds(OperationsSettings.metricsIdleTimeoutMaximumSeconds) {
            throw file.error(at: .key(Key.metricsIdleTimeout.name), expected: Key.metricsIdleTimeout.expected)
        }
        return OperationsSettings(
            metricsAddress: address,
            metricsConnectionLimit: plist.metricsConnectionLimit ?? OperationsSettings.defaultMetricsConnectionLimit,
            metricsPeerConnectionLimit: plist.metricsPeerConnectionLimit
                ?? OperationsSettings.defaultMetricsPeerConnectionLimit,
            metricsRequestByteLimit: plist.metricsRequestByteLimit
                ?? OperationsSettings.defaultMetricsRequestByteLimit,
            metricsIdleTimeout: idle ?? OperationsSettings.defaultMetricsIdleTimeout,
            logLevel: try file.choice(plist.logLevel, key: Key.logLevel, as: DaemonLogLevel.self),
            logFormat: try file.choice(plist.logFormat, key: Key.logFormat, as: DaemonLogFormat.self) ?? .text,
            metricsPerApp: try file.choice(plist.metricsPerApp, key: Key.metricsPerApp, as: MetricsPerApp.self)
                ?? .state
        )
    }
}
