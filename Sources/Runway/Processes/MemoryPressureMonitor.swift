import CLibUV
import Logging
import RunwayCore

/// Where memory pressure is read from, and the thresholds (SPEC P3).
public struct MemoryPressureOptions: Sendable, Hashable {
    public enum Source: Sendable, Hashable {
        /// A PSI file (`some avg10=` is the pressure in percent): `/proc/pressure/memory` by default, or a
        /// cgroup's `memory.pressure`.
        case psi(path: String)
        /// The summed resident set of every process app's processes against a ceiling in bytes: warning at
        /// 90 % of it, critical at 100 %.
        case rss(ceilingBytes: UInt64)
    }

    public var source: Source
    /// PSI `some avg10` percentage at which running apps get `didReceiveMemoryWarning`. Default 10.
    public var warningPercent: Double
    /// PSI percentage at which suspended apps are purged, one per poll, longest-suspended first. Default 30.
    public var criticalPercent: Double
    /// How often pressure is read. Default 1 s.
    public var pollInterval: TimeSpan

    public init(
        source: Source = .psi(path: "/proc/pressure/memory"),
        warningPercent: Double = 10,
        criticalPercent: Double = 30,
        pollInterval: TimeSpan = .seconds(1)
    ) {
        precondition(warningPercent <= criticalPercent, "warningPercent must not exceed criticalPercent")
        precondition(pollInterval >= .milliseconds(1), "pollInterval must be at least 1 ms")
        self.source = source
        self.warningPercent = warningPercent
        self.criticalPercent = criticalPercent
        self.pollInterval = pollInterval
    }
}

/// Samples memory pressure on a libuv timer and turns it into the core's P3 events: one
/// `memoryWarningRaised` when pressure reaches the warning level (again only after it fell back to normal),
/// and one `purgeRequested` per poll while it stays at the critical level. Loop thread only.
final class MemoryPressureMonitor {
    enum Level: Comparable { case normal, warning, critical }

    let options: MemoryPressureOptions
    let logger: Logger
    private let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private var level = Level.normal
    private var unreadableLogged = false
    /// Reads the current resident bytes of the apps (for `.rss`).
    var residentBytes: () -> UInt64 = { 0 }
    var onWarning: () -> Void = {}
    /// Purges one app; returns it, or nil when nothing may be purged.
    var onCritical: () -> AppID? = { nil }

    init(options: MemoryPressureOptions, loop: UnsafeMutablePointer<uv_loop_t>, logger: Logger) {
        self.options = options
        self.logger = logger
        let status = uv_timer_init(loop, self.timer)
        precondition(status == 0, "uv_timer_init cannot fail on a valid loop: \(status)")
        self.timer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    func start() {
        let milliseconds = UInt64(max(1, self.options.pollInterval.nanoseconds / 1_000_000))
        uv_timer_start(
            self.timer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<MemoryPressureMonitor>.fromOpaque(data).takeUnretainedValue().sample()
            },
            milliseconds,
            milliseconds
        )
    }

    func stop() {
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

    func classify(percent: Double) -> Level {
        if percent >= self.options.criticalPercent { return .critical }
        if percent >= self.options.warningPercent { return .warning }
        return .normal
    }

    private func currentLevel() -> Level? {
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
                return nil
            }
            return self.classify(percent: percent)
        case .rss(let ceiling):
            let used = Double(self.residentBytes())
            if used >= Double(ceiling) { return .critical }
            return used >= 0.9 * Double(ceiling) ? .warning : .normal
        }
    }

    private func sample() {
        guard let level = self.currentLevel() else { return }
        let previous = self.level
        self.level = level
        if level != previous {
            self.logger.info("memory pressure level changed", metadata: ["from": "\(previous)", "to": "\(level)"])
        }
        if level >= .warning && previous == .normal { self.onWarning() }
        if level == .critical {
            if let purged = self.onCritical() {
                self.logger.info("purged under memory pressure", metadata: ["app": "\(purged)"])
            }
        }
    }
}
