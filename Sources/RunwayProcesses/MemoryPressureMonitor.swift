import CLibUV
import Logging
@_spi(Driver) @_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where memory pressure is read from and how often (Behaviour.md P3; when: `MemoryPressureMonitor`). The thresholds
/// are the core's: `SchedulerSettings.memoryPressure` (a `MemoryPressurePolicy`).
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
    /// How often pressure is read while it is above normal after a PSI trigger, and always where no trigger can be
    /// created. Default 1 s; at least 1 ms.
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

/// Reads memory pressure and reports each reading to `onSample` (the driver feeds it to
/// `Scheduler.memoryPressureSampled`). It keeps no level and decides nothing: the warning and purge decisions are
/// the core's (P3). When it reads:
/// - A PSI source on procfs or cgroupfs: on the kernel's word only. A PSI trigger (`PSITrigger`) wakes the loop when
///   tasks stall on memory; the file is read then, and again every `pollInterval` while `onSample` answers that the
///   pressure is not back to normal (the core's level: a warning or a purge level must be seen to fall). With no
///   stall, nothing is read and no timer runs: an idle daemon is not woken.
/// - Anything else (the `.rss` source; a PSI path on another file system; a kernel that refuses the trigger: the
///   reason is logged once): every `pollInterval`, as a fallback.
///
/// Loop thread only.
package final class MemoryPressureMonitor {
    let options: MemoryPressureOptions
    let logger: Logger
    private let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private var timerRunning = false
    /// The trigger and its poll handle, while the kernel wakes the monitor.
    private var trigger: (PSITrigger, UnsafeMutablePointer<uv_poll_t>)?
    private let loop: UnsafeMutablePointer<uv_loop_t>
    private let triggerStallMicroseconds: UInt64
    private var unreadableLogged = false
    /// Reads the current resident bytes of the apps (for `.rss`).
    package var residentBytes: () -> UInt64 = { 0 }
    /// Receives every reading, `.unreadable` included, on the loop thread, and answers whether the pressure is still
    /// above normal (with a trigger, the file is read again every `pollInterval` until it answers false).
    package var onSample: (MemoryPressureSample) -> Bool = { _ in false }
    /// Readings taken (tests).
    package private(set) var sampleCount = 0
    /// True while a PSI trigger wakes the monitor instead of its timer.
    package var usesTrigger: Bool { self.trigger != nil }

    /// - Parameters:
    ///   - warningPercent: The core's warning threshold, from which the trigger's stall is set
    ///     (`PSITrigger.stallMicroseconds`).
    package init(
        options: MemoryPressureOptions,
        warningPercent: Double,
        loop: UnsafeMutablePointer<uv_loop_t>,
        logger: Logger
    ) {
        self.options = options
        self.logger = logger
        self.loop = loop
        self.triggerStallMicroseconds = PSITrigger.stallMicroseconds(warningPercent: warningPercent)
        let status = uv_timer_init(loop, self.timer)
        precondition(status == 0, "uv_timer_init cannot fail on a valid loop: \(status)")
        self.timer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Creates the PSI trigger, or starts the timer where none can be created.
    package func start() {
        guard case .psi(let path) = self.options.source else { return self.startPolling() }
        switch PSITrigger.create(path: path, stallMicroseconds: self.triggerStallMicroseconds) {
        case .success(let trigger):
            let poll = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
            guard uv_poll_init(self.loop, poll, trigger.fd) == 0 else {
                poll.deallocate()
                close(trigger.fd)
                return self.startPolling()
            }
            poll.pointee.data = Unmanaged.passUnretained(self).toOpaque()
            self.trigger = (trigger, poll)
            uv_poll_start(poll, Int32(UV_PRIORITIZED.rawValue)) { poll, status, _ in
                guard let poll, let data = poll.pointee.data else { return }
                Unmanaged<MemoryPressureMonitor>.fromOpaque(data).takeUnretainedValue().triggerFired(status: status)
            }
        case .failure(let reason):
            self.logger.info(
                "memory pressure is read on a timer: no PSI trigger",
                metadata: ["reason": "\(reason)", "interval": "\(self.options.pollInterval)"]
            )
            self.startPolling()
        }
    }

    package func stop() {
        uv_timer_stop(self.timer)
        uv_close(runway_timer_as_handle(self.timer)) { $0?.deallocate() }
        self.closeTrigger()
    }

    /// The kernel saw the stall (or the file failed: a removed cgroup's, then the timer takes over).
    private func triggerFired(status: Int32) {
        guard status == 0 else {
            self.logger.info(
                "the PSI trigger failed; memory pressure is read on a timer",
                metadata: ["status": .stringConvertible(status), "interval": "\(self.options.pollInterval)"]
            )
            self.closeTrigger()
            return self.startPolling()
        }
        if self.sample() { self.startPolling() }
    }

    /// One reading reported; true when `onSample` answers that the pressure is above normal.
    private func sample() -> Bool {
        self.sampleCount += 1
        return self.onSample(self.read())
    }

    private func startPolling() {
        guard !self.timerRunning else { return }
        self.timerRunning = true
        let milliseconds = UInt64(max(1, self.options.pollInterval.nanoseconds / 1_000_000))
        uv_timer_start(
            self.timer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<MemoryPressureMonitor>.fromOpaque(data).takeUnretainedValue().timerFired()
            },
            milliseconds,
            milliseconds
        )
    }

    /// With a trigger, the timer runs only until the pressure is back to normal.
    private func timerFired() {
        let above = self.sample()
        guard self.trigger != nil, !above else { return }
        self.timerRunning = false
        uv_timer_stop(self.timer)
    }

    private func closeTrigger() {
        guard let (trigger, poll) = self.trigger else { return }
        self.trigger = nil
        uv_poll_stop(poll)
        uv_close(runway_poll_as_handle(poll)) { $0?.deallocate() }
        close(trigger.fd)
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
