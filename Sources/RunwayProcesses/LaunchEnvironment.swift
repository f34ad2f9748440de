@_spi(Processes) import RunwayCore
import RunwayProtocol

/// A child's environment built from this process's, read once per loop turn and kept sorted by key
/// as `KEY=value` entries, so that each launch merges in only its own few variables instead of copying, sorting and
/// formatting the whole environment again.
///
/// Value type; built and used on the loop thread.
struct LaunchEnvironment {
    /// This process's variables, sorted by key, each with its `KEY=value` entry.
    let base: [(key: String, entry: String)]

    /// Variables systemd gives the daemon that address the daemon alone: with them an app could send `READY=1`,
    /// `STOPPING=1` or `WATCHDOG=1` in the daemon's name (under `NotifyAccess=all`), or take descriptors it was not
    /// given for its own. An app gets them only when its own `EnvironmentVariables` sets them.
    static let daemonOnlyKeys: Set<String> = [
        "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
    ]

    /// - Parameter variables: This process's environment (`ProcessSupervisor.currentEnvironment()`); the
    ///   `daemonOnlyKeys` are left out.
    init(_ variables: [String: String]) {
        self.base = variables.filter { !Self.daemonOnlyKeys.contains($0.key) }.sorted { $0.key < $1.key }.map {
            (key: $0.key, entry: "\($0.key)=\($0.value)")
        }
    }

    /// The child's environment as `KEY=value`, sorted by key: this process's but for the `daemonOnlyKeys`,
    /// overridden by the app's `EnvironmentVariables`, then `RUNWAY_APP` and, for a protocol app, `RUNWAY_FD=3` (A4).
    func entries(for app: AppID, spec: ProcessSpec) -> [String] {
        var overrides = spec.environment
        overrides[AppProtocol.appEnvironmentKey] = app.bundleIdentifier
        if spec.speaksProtocol { overrides[AppProtocol.descriptorEnvironmentKey] = "3" }
        let added = overrides.sorted { $0.key < $1.key }
        var result: [String] = []
        result.reserveCapacity(self.base.count + added.count)
        var next = 0
        for (key, entry) in self.base {
            while next < added.count && added[next].key < key {
                result.append("\(added[next].key)=\(added[next].value)")
                next += 1
            }
            if next < added.count && added[next].key == key { continue }  // Overridden: added in its place.
            result.append(entry)
        }
        for (key, value) in added[next...] { result.append("\(key)=\(value)") }
        return result
    }
}
