/// Where the daemon reads memory pressure from (P3). `Runway.plist` key `MemoryPressureSource`.
package enum MemoryPressureSource: String, Hashable, Sendable, CaseIterable {
    /// Linux pressure stall information: the cgroup's `memory.pressure`, else `/proc/pressure/memory`. The
    /// `some avg10` percentage is compared with `MemoryWarningPressure` and `MemoryCriticalPressure`. The default.
    case psi
    /// The summed resident set size of the process apps, compared with `RSSCeilingBytes`.
    case rss
    /// No memory pressure handling: no warnings are sent and nothing is purged.
    case off
}
