@_spi(Processes) @_spi(Benchmarks) import RunwayCore
@_spi(Benchmarks) import RunwayLoop
@_spi(Processes) import RunwayProcesses

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Settings of the daemon around the scheduler: its control socket (K1), how process apps are suspended (P1) and
/// memory pressure handling (P3). Read from `Runway.plist` next to the scheduler settings; the core never sees them.
package struct DaemonSettings: Hashable, Sendable {
    /// `ControlSocket`: absolute path of the Unix control socket (K1). Default:
    /// ``defaultControlSocketPath(uid:runtimeDirectory:)``: `/run/runway/control.sock` for root, else
    /// `$XDG_RUNTIME_DIR/runway/control.sock`, else `/tmp/runway-<uid>/control.sock`.
    package var controlSocketPath: String
    /// `MemoryPressureSource`: `psi` (default), `rss` or `off`.
    package var memoryPressureSource: MemoryPressureSource
    /// `MemoryWarningPressure`: PSI `some avg10` percentage at or above which running apps are sent
    /// `didReceiveMemoryWarning`. Default 10; within 0...100.
    package var memoryWarningPressure: Double
    /// `MemoryCriticalPressure`: PSI percentage at or above which apps are purged, one per sample in the order of
    /// P8 (P3). Default 30; within `memoryWarningPressure...100`.
    package var memoryCriticalPressure: Double
    /// `RSSCeilingBytes`: the resident-set ceiling used when the source is `rss`; nil otherwise. Greater than 0.
    package var rssCeilingBytes: UInt64?
    /// `MemoryPollInterval`: how often pressure is sampled. Default 1 s; greater than zero.
    package var memoryPollInterval: TimeSpan
    /// `LoopRealtimePriority`: run the scheduler's loop thread at SCHED_FIFO this priority (within
    /// `LoopLimits.realtimePriorities`); nil (the default) keeps the normal policy. See `LoopThreadPriority` in Runway.
    package var loopRealtimePriority: Int32?

    /// `LoopWakeupSpin`: arm the loop's timer this long before each deadline and spin to it (see
    /// `RunwayScheduler(wakeupSpin:)`). Default zero; at most `LoopLimits.maximumWakeupSpin`.
    package var loopWakeupSpin: TimeSpan

    /// `SuspensionMechanism`: how process apps are suspended (P1), passed to `ProcessOptions.suspensionMechanism`.
    /// Default `.auto`.
    package var suspensionMechanism: SuspensionMechanism

    /// `ControlClientLimit`: most control-socket connections served at once (K1); one more is refused with a
    /// `tooManyClients` line. Default 64; within `controlClientLimits`.
    package var controlClientLimit: Int
    /// `ControlQueueByteLimit`: most bytes of replies and events waiting for one control-socket connection; a
    /// peer that lets more pile up is sent a final `slowReader` line and disconnected. A reply is always queued
    /// whole when no more than this waits. Default 4 MiB; within `controlQueueByteLimits`.
    package var controlQueueByteLimit: Int
    /// The metrics endpoint and the daemon's log (`MetricsAddress`, `LogLevel`, ...; OperationsPlist.swift).
    package var operations = OperationsSettings()

    /// `AppLogLineLimit`: most lines kept in memory per run of a process app's output (`runway logs`). Default
    /// 1,000; within `appLogLineLimits`.
    package var appLogLineLimit = DaemonSettings.defaultAppLogLineLimit
    /// `AppLogByteLimit`: most bytes of line text kept in memory per run of a process app's output. Default
    /// 256 KiB; within `appLogByteLimits`.
    package var appLogByteLimit = DaemonSettings.defaultAppLogByteLimit
    /// `StateDirectory`: where the process state file and the run history go; nil: `--state-directory`, else
    /// the default control socket's directory (RunwayControl's `StateDirectory.defaultPath`).
    package var stateDirectory: String?
    /// `RunHistoryLimit`: runs kept per app in the run history. Default 10; within `runHistoryLimits`.
    package var runHistoryLimit = DaemonSettings.defaultRunHistoryLimit
    /// `StateRestorationByteLimit` (R1): the largest state blob an app may preserve. Default 1 MiB; within
    /// `stateRestorationByteLimits`.
    package var stateRestorationByteLimit = DaemonSettings.defaultStateRestorationByteLimit
    /// `StateRestorationWriteInterval` (R1): the least time between two writes of one app's state file. Default
    /// 1 s; within `stateRestorationWriteIntervals`.
    package var stateRestorationWriteInterval = DaemonSettings.defaultStateRestorationWriteInterval
    /// `AppUserName` / `AppGroupName`: the user process apps without `UserName` run as; nil: the daemon's own.
    package var appUser: AppUser?

    package static let defaultRunHistoryLimit = 10
    package static let defaultStateRestorationByteLimit = 1 << 20
    package static let defaultStateRestorationWriteInterval = Duration.seconds(1)
    /// Bounds of `StateRestorationWriteInterval`, in seconds: 0 (no spacing) to an hour.
    package static let stateRestorationWriteIntervals = 0.0...3_600.0
    /// Bounds of `StateRestorationByteLimit`: 1 byte to 16 MiB.
    package static let stateRestorationByteLimits = 1...(16 << 20)
    /// Bounds of `RunHistoryLimit`.
    package static let runHistoryLimits = 1...1_000

    package static let defaultControlClientLimit = 64
    package static let defaultControlQueueByteLimit = 4 << 20
    /// Bounds of `ControlClientLimit`.
    package static let controlClientLimits = 1...1_024
    /// Bounds of `ControlQueueByteLimit`: 64 KiB to 1 GiB.
    package static let controlQueueByteLimits = 65_536...(1 << 30)

    /// Creates daemon settings. The loader validates plist values before calling this; code that builds settings
    /// directly must respect the same ranges, which are checked with preconditions.
    package init(
        controlSocketPath: String = DaemonSettings.defaultControlSocketPath(),
        memoryPressureSource: MemoryPressureSource = .psi,
        memoryWarningPressure: Double = 10,
        memoryCriticalPressure: Double = 30,
        rssCeilingBytes: UInt64? = nil,
        memoryPollInterval: TimeSpan = .seconds(1),
        loopRealtimePriority: Int32? = nil,
        loopWakeupSpin: TimeSpan = .zero,
        suspensionMechanism: SuspensionMechanism = .auto,
        controlClientLimit: Int = DaemonSettings.defaultControlClientLimit,
        controlQueueByteLimit: Int = DaemonSettings.defaultControlQueueByteLimit
    ) {
        precondition(
            (0...100).contains(memoryWarningPressure),
            "memoryWarningPressure must be within 0...100, got \(memoryWarningPressure)"
        )
        precondition(
            (memoryWarningPressure...100).contains(memoryCriticalPressure),
            "memoryCriticalPressure must be within \(memoryWarningPressure)...100, got \(memoryCriticalPressure)"
        )
        precondition(rssCeilingBytes != 0, "rssCeilingBytes must be greater than 0")
        precondition(
            memoryPressureSource != .rss || rssCeilingBytes != nil,
            "memoryPressureSource rss needs rssCeilingBytes"
        )
        precondition(memoryPollInterval > .zero, "memoryPollInterval must be positive, got \(memoryPollInterval)")
        precondition(
            loopRealtimePriority.map { LoopLimits.realtimePriorities.contains($0) } ?? true,
            "loopRealtimePriority must be within 1...99, got \(String(describing: loopRealtimePriority))"
        )
        self.controlSocketPath = controlSocketPath
        self.memoryPressureSource = memoryPressureSource
        self.memoryWarningPressure = memoryWarningPressure
        self.memoryCriticalPressure = memoryCriticalPressure
        self.rssCeilingBytes = rssCeilingBytes
        self.memoryPollInterval = memoryPollInterval
        self.loopRealtimePriority = loopRealtimePriority
        precondition(
            loopWakeupSpin >= .zero && loopWakeupSpin <= LoopLimits.maximumWakeupSpin,
            "loopWakeupSpin must be within 0 ... 1 ms, got \(loopWakeupSpin)"
        )
        self.loopWakeupSpin = loopWakeupSpin
        self.suspensionMechanism = suspensionMechanism
        precondition(
            Self.controlClientLimits.contains(controlClientLimit),
            "controlClientLimit must be within \(Self.controlClientLimits), got \(controlClientLimit)"
        )
        precondition(
            Self.controlQueueByteLimits.contains(controlQueueByteLimit),
            "controlQueueByteLimit must be within \(Self.controlQueueByteLimits), got \(controlQueueByteLimit)"
        )
        self.controlClientLimit = controlClientLimit
        self.controlQueueByteLimit = controlQueueByteLimit
    }

    /// The control socket used when `Runway.plist` has no `ControlSocket` (K1, Docs/Security.md). The daemon and
    /// the CLI both call this, so that they meet at the same path:
    ///
    /// - uid 0: `/run/runway/control.sock`;
    /// - anyone else, when `XDG_RUNTIME_DIR` is an absolute path: `$XDG_RUNTIME_DIR/runway/control.sock` (a
    ///   relative or empty value is ignored, as the XDG Base Directory specification says);
    /// - else `/tmp/runway-<uid>/control.sock`.
    ///
    /// The socket is always in a directory of its own, never directly in a shared one such as `/tmp`: the daemon
    /// creates that directory with mode 0700 and refuses to serve when it is not a real directory owned by the
    /// daemon's user with mode 0700 (`ControlSocketDirectory` in RunwayControl), so that another user can neither
    /// take the path first nor put anything in the way. Pure apart from its default arguments; any thread.
    ///
    /// - Parameters:
    ///   - uid: The user the daemon runs as; defaults to the calling process's real uid.
    ///   - runtimeDirectory: The value of `XDG_RUNTIME_DIR`; defaults to this process's environment.
    /// - Returns: An absolute path. The daemon, not the loader, creates and checks its directory.
    package static func defaultControlSocketPath(
        uid: UInt32 = UInt32(getuid()),
        runtimeDirectory: String? = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
    ) -> String {
        if uid == 0 { return "/run/runway/control.sock" }
        if var directory = runtimeDirectory, directory.hasPrefix("/") {
            while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
            return (directory == "/" ? "" : directory) + "/runway/control.sock"
        }
        return "/tmp/runway-\(uid)/control.sock"
    }

    /// Longest path a Unix socket address can hold on this platform, in bytes (without the terminating NUL):
    /// 107 on Linux, 103 on Darwin.
    static var controlSocketPathMaximumBytes: Int {
        MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
    }
}
