import CLibUV
import Logging
@_spi(Driver) @_spi(Processes) import RunwayCore

/// Where memory pressure is read from and how often (Behaviour.md P3). The thresholds are the core's:
/// `SchedulerSettings.memoryPressure` (a `MemoryPressurePolicy`).
@_spi(Processes)
public struct MemoryPressureOptions: Sendable, Hashable {
    /// What a reading of memory pressure measures.
    public enum Source: Sendable, Hashable {
        /// A PSI file (`some avg10=` is the pressure in percent): `/proc/pressure/memory` by default, or a
        /// cgroup's `memory.pressure`.
        case psi(path: String)
        /// The summed resident set of every process app's processes against a ceiling in bytes (the core warns
        /// at 90 % of it and purges at 100 %).
        case rss(ceilingBytes: UInt64)
    }

    /// Where pressure is read from. Default `.psi(path: "/proc/pressure/memory")`.
    public var source: Source
    /// How often pressure is read. Default 1 s; at least 1 ms.
    public var pollInterval: TimeSpan

    /// Options for the scheduler's memory-pressure sampling (`ProcessOptions.memoryPressure`).
    ///
    /// - Parameters:
    ///   - source: Where pressure is read from; default the system-wide PSI file.
    ///   - pollInterval: How often it is read, on the loop thread; at least 1 ms (a precondition).
    public init(source: Source = .psi(path: "/proc/pressure/memory"), pollInterval: TimeSpan = .seconds(1)) {
        precondition(pollInterval >= .milliseconds(1), "pollInterval must be at least 1 ms")
        self.source = source
        self.pollInterval = pollInterval
    }
}

/// Samples memory pressure on a libuv timer, every `pollInterval`, and reports each reading to `onSample`
/// (the driver feeds it to `Scheduler.memoryPressureSampled`). It keeps no level and decides nothing: the
/// warning and purge decisions are the core's (P3). Loop thread only.
package final class MemoryPressureMonitor {
    let options: MemoryPressureOptions
    let logger: Logger
    private let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private var unreadableLogged = false
    /// Reads the current resident bytes of the apps (for `.rss`).
    package var residentBytes: () -> UInt64 = { 0 }
    /// Receives every reading, `.unreadable` included, on the loop thread.
    package var onSample: (MemoryPressureSample) -> Void = { _ in }

    package init(options: MemoryPressureOptions, loop: UnsafeMutablePointer<uv_loop_t>, logger: Logger) {
        self.options = options
        self.logger = logger
        let status = uv_timer_init(loop, self.timer)
        precondition(status == 0, "uv_timer_init cannot fail on a valid loop: \(status)")
        self.timer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    package func start() {
        let milliseconds = UInt64(max(1, self.options.pollInterval.nanoseconds / 1_000_000))
        uv_timer_start(
            self.timer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                let monitor = Unmanaged<MemoryPressureMonitor>.fromOpaque(data).takeUnretainedValue()
                monitor.onSample(monitor.read())
            },
            milliseconds,
            milliseconds
        )
    }

    package func stop() {
        uv_timer_stop(self.timer)
        uv_close(runway_timer_as_handle(self.timer)) { $0?.deallocate() }
    }

    /// The pressure in percent from a PSI file's text: the `some avg10=` value.
    static func parsePSI(_ text: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("some ") }) else { return nil }
        for field in line.split(separator: " ") where field.hasPrefix("avg10=") {
            return Double(field.dropFirst("avg10=".count))
        }
        return nil
    }

    /// One reading of the configured source. Logs the first unreadable PSI file once.
    func read() -> MemoryPressureSample {
        switch self.options.source {
        case .psi(let path):
            guard let percent = SystemFiles.read(path).flatMap(Self.parsePSI) else {
                if !self.unreadableLogged {
                    self.logger.info(
                        "memory pressure unreadable; P3 is inactive until it can be read",
                        metadata: ["file": "\(path)"]
                    )
                    self.unreadableLogged = true
                }
                return .unreadable
            }
            return .psi(percent: percent)
        case .rss(let ceiling):
            return .resident(bytes: self.residentBytes(), ceilingBytes: ceiling)
        }
    }
}
