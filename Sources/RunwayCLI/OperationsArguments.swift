import ArgumentParser
import RunwayConfig
import RunwayControl

// `runway run`'s arguments for the daemon's log, timeline and metrics (Docs/Operations.md).

extension DaemonLogLevel: ExpressibleByArgument {}

extension DaemonLogFormat: ExpressibleByArgument {}

extension TimelineMode: ExpressibleByArgument {}

extension MetricsAddress {
    /// `--metrics-address HOST:PORT | [IPV6]:PORT | PORT`; the error says what is accepted.
    static func argument(_ text: String) throws -> MetricsAddress {
        guard let address = MetricsAddress(parsing: text) else {
            throw ValidationError("expected \(MetricsAddress.expected)")
        }
        return address
    }
}
