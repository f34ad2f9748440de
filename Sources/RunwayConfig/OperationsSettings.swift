import RunwayCore

/// The daemon's operator-facing outputs, from `Runway.plist`: the Prometheus endpoint (`MetricsAddress` and its
/// limits) and its own log (`LogLevel`, `LogFormat`). Docs/Operations.md and Docs/Configuration.md describe them.
///
/// A value type read once at start (a change needs a restart, like every daemon setting); any thread.
package struct OperationsSettings: Hashable, Sendable {
    /// `MetricsAddress`: where `GET /metrics` is served; nil (the default) serves nothing.
    package var metricsAddress: MetricsAddress?
    /// `MetricsConnectionLimit`: most HTTP connections to the metrics endpoint open at once; one more takes the
    /// place of the oldest connection waiting for a request, or is answered 503. Default 16; within
    /// `metricsConnectionLimits`.
    package var metricsConnectionLimit: Int
    /// `MetricsPeerConnectionLimit`: most of those from one peer address. Default 8; within
    /// `metricsConnectionLimits`.
    package var metricsPeerConnectionLimit: Int
    /// `MetricsRequestByteLimit`: most bytes of one request (request line and headers, plus any body); a larger
    /// request is answered 431 and the connection closed. Default 8 KiB; within `metricsRequestByteLimits`.
    package var metricsRequestByteLimit: Int
    /// `MetricsIdleTimeout`: a connection that sends nothing for this long is closed. Default 10 s; within
    /// `metricsIdleTimeouts` (seconds).
    package var metricsIdleTimeout: TimeSpan
    /// `LogLevel`: the lowest level the daemon logs; nil: `notice` (or what `runway run --log-level` says).
    package var logLevel: DaemonLogLevel?
    /// `LogFormat`: `text` (default) or `json`, one object per line.
    package var logFormat: DaemonLogFormat
    /// `MetricsPerApp`: which series `GET /metrics` has for each app: `state` (the default, one series an app)
    /// or `all` (seven an app: the state, tasks, crash loop, containment and three counters).
    package var metricsPerApp: MetricsPerApp

    package static let defaultMetricsConnectionLimit = 16
    package static let defaultMetricsPeerConnectionLimit = 8
    package static let defaultMetricsRequestByteLimit = 8_192
    package static let defaultMetricsIdleTimeout = TimeSpan.seconds(Int64(10))
    /// Bounds of `MetricsConnectionLimit` and `MetricsPeerConnectionLimit`.
    package static let metricsConnectionLimits = 1...1_024
    /// Bounds of `MetricsRequestByteLimit`: 1 KiB to 1 MiB.
    package static let metricsRequestByteLimits = 1_024...(1 << 20)
    /// Bounds of `MetricsIdleTimeout`: above zero, at most an hour.
    package static let metricsIdleTimeoutMaximumSeconds: Int64 = 3_600

    /// Creates the settings; the loader validates plist values first, code that builds them directly must keep
    /// the same bounds (checked with preconditions).
    package init(
        metricsAddress: MetricsAddress? = nil,
        metricsConnectionLimit: Int = OperationsSettings.defaultMetricsConnectionLimit,
        metricsPeerConnectionLimit: Int = OperationsSettings.defaultMetricsPeerConnectionLimit,
        metricsRequestByteLimit: Int = OperationsSettings.defaultMetricsRequestByteLimit,
        metricsIdleTimeout: TimeSpan = OperationsSettings.defaultMetricsIdleTimeout,
        logLevel: DaemonLogLevel? = nil,
        logFormat: DaemonLogFormat = .text,
        metricsPerApp: MetricsPerApp = .state
    ) {
        precondition(Self.metricsConnectionLimits.contains(metricsConnectionLimit), "bad metricsConnectionLimit")
        precondition(
            Self.metricsConnectionLimits.contains(metricsPeerConnectionLimit),
            "bad metricsPeerConnectionLimit"
        )
        precondition(Self.metricsRequestByteLimits.contains(metricsRequestByteLimit), "bad metricsRequestByteLimit")
        precondition(
            metricsIdleTimeout > .zero && metricsIdleTimeout <= .seconds(Self.metricsIdleTimeoutMaximumSeconds),
            "bad metricsIdleTimeout"
        )
        self.metricsAddress = metricsAddress
        self.metricsConnectionLimit = metricsConnectionLimit
        self.metricsPeerConnectionLimit = metricsPeerConnectionLimit
        self.metricsRequestByteLimit = metricsRequestByteLimit
        self.metricsIdleTimeout = metricsIdleTimeout
        self.logLevel = logLevel
        self.logFormat = logFormat
        self.metricsPerApp = metricsPerApp
    }
}

/// `MetricsPerApp`: the per-app detail of `GET /metrics`. Prometheus keeps every label set as a series of its
/// own, so the default keeps one series an app (its state) and the aggregates; `all` adds the six per-app series
/// a small fleet may want (Docs/Operations.md lists both).
package enum MetricsPerApp: String, CaseIterable, Hashable, Sendable {
    case state, all
}

/// The levels of `LogLevel` and `runway run --log-level`, swift-log's, lowest first.
package enum DaemonLogLevel: String, CaseIterable, Hashable, Sendable {
    case trace, debug, info, notice, warning, error, critical
}

/// `LogFormat` and `runway run --log-format`: swift-log's text lines, or one JSON object per line (time, level,
/// label, message, metadata) for a log aggregator.
package enum DaemonLogFormat: String, CaseIterable, Hashable, Sendable {
    case text, json
}

/// A TCP address for the metrics endpoint: `HOST:PORT`, `[IPV6]:PORT`, or only `PORT` for the loopback address
/// 127.0.0.1. Port 0 asks the kernel for a free port (the daemon prints the one it got). The host is resolved
/// when the daemon binds, not here. Pure; any thread.
package struct MetricsAddress: Hashable, Sendable, CustomStringConvertible {
    package var host: String
    package var port: Int

    /// What `MetricsAddress` and `--metrics-address` accept, for errors.
    package static let expected =
        "HOST:PORT, [IPV6]:PORT or PORT (127.0.0.1 then), with a port from 0 to 65535 (0: any free port)"

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `text`; nil when it is not one of the accepted forms.
    package init?(parsing text: String) {
        if let port = Self.port(Substring(text)) {
            self.init(host: "127.0.0.1", port: port)
            return
        }
        guard let colon = text.lastIndex(of: ":"), let port = Self.port(text[text.index(after: colon)...]) else {
            return nil
        }
        var host = text[..<colon]
        if host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2 {
            host = host.dropFirst().dropLast()
            guard host.contains(":") else { return nil }
        } else if host.contains(":") || host.contains("[") || host.contains("]") {
            return nil
        }
        guard !host.isEmpty, host.utf8.count <= 253, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else {
            return nil
        }
        self.init(host: String(host), port: port)
    }

    private static func port(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(text), port <= 65_535
        else { return nil }
        return port
    }

    /// `127.0.0.1:9100`, `[::1]:9100`.
    package var description: String {
        self.host.contains(":") ? "[\(self.host)]:\(self.port)" : "\(self.host):\(self.port)"
    }
}
