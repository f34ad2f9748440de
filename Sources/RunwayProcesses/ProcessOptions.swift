@_spi(Processes) import RunwayCore

/// How a `RunwayScheduler` starts and controls process apps (Behaviour.md section 5, A4, A5).
@_spi(Processes)
public struct ProcessOptions: Sendable {
    /// Relative `ProgramArguments[0]` paths (with a `/`) and relative `WorkingDirectory`s are resolved
    /// against this directory (the daemon passes its configuration directory). Default: the current directory.
    public var baseDirectory: String?
    /// Directories searched, in order and before `PATH`, for a `ProgramArguments[0]` without a `/` (the
    /// daemon passes the directory of the `runway` executable, so sample apps built beside it are found).
    public var searchDirectories: [String]
    /// How process apps are suspended (P1; `SuspensionMechanism` in `Runway.plist`): the cgroup v2 freezer
    /// where usable else SIGSTOP (`auto`, the default), the freezer only, or SIGSTOP/SIGCONT only. The only
    /// source of this setting; it is resolved per app when the app is registered and again at each launch.
    public var suspensionMechanism: SuspensionMechanism
    /// How long a freeze, thaw, SIGSTOP or SIGCONT may take to be confirmed before it is reported as
    /// unconfirmed in the log and status. Default 2 s. Checked every `confirmationPollMilliseconds`, so a
    /// confirmation is reported up to that much after the kernel shows it.
    public var confirmationTimeout: TimeSpan
    /// How often pending confirmations are checked: every 1 ms (libuv's timer resolution).
    public var confirmationPollMilliseconds: UInt64
    /// How long the suspension of a protocol app may wait for the app to read what was written to its channel
    /// (the answer to its last `endBackgroundTask`, written just before the core suspends it) and to go idle, so
    /// that the answer reaches it before it is frozen. Waited only when something is unread or was written in the
    /// same loop turn; checked every `confirmationPollMilliseconds`; an app that does not read in time is frozen
    /// anyway (logged). The core counts the app as suspended from the start. Default 50 ms; zero never waits; not
    /// negative.
    public var suspendDrainTimeout: TimeSpan
    /// stdout and stderr lines longer than this are kept cut to it, with a `[runway: cut, ...]` marker. Default 16 KiB.
    public var outputLineLimitBytes: Int
    /// The most bytes of one app's stdout, and as many of its stderr, read per loop turn (a turn is one value of
    /// the loop's millisecond clock, so this holds per millisecond too). An app that writes more is read again
    /// 1 ms later; meanwhile its pipe fills and its writes block, so a flood slows the writer, not the loop's
    /// deadlines, and no output is lost. Default 64 KiB; positive; `Int.max` turns the bound off.
    public var outputBytesPerTurn: Int
    /// The most lines of one app's stdout, and as many of its stderr, logged per loop turn; the bytes after the
    /// last one are held (at most one read) and logged first in a later turn, and reading waits until then, as
    /// for `outputBytesPerTurn`. Logging lines is most of the output work. Default 64; positive; `Int.max` turns
    /// the bound off.
    public var outputLinesPerTurn: Int
    /// Protocol lines longer than this are answered with `lineTooLong` (A5). Default 64 KiB.
    public var protocolLineLimitBytes: Int
    /// Bytes queued to a protocol child that does not read, beyond which it is terminated
    /// (`protocolViolation`). Default 1 MiB.
    public var protocolWriteQueueLimitBytes: Int
    /// Malformed protocol lines tolerated per second before termination (A5). Default 3.
    public var protocolMalformedLimit: Int
    /// Protocol lines of any kind tolerated per second before termination (flooding, A5). Default 1,000.
    public var protocolLineRateLimit: Int
    /// Writes `oom_score_adj` of each process app by state (active lowest, suspended highest) so that the
    /// kernel's OOM killer follows the purge order (P3). Default true.
    public var adjustsOOMScore: Bool
    /// Makes this process a child subreaper, so that processes orphaned by an app's exit are re-parented here
    /// and reaped (no zombie is left: P2). Process-wide; default true. With it, every exited child of this
    /// process that runs in another session than this process and is not an app's main process is reaped on
    /// SIGCHLD: a host that starts children in sessions of their own (`setsid`) and waits for them itself must
    /// turn this off. With it, SIGCHLD's handler also gets `SA_NOCLDSTOP`: children's stops and
    /// continues raise no SIGCHLD in this process (waits still report them).
    public var reapsOrphans: Bool
    /// How long after an app's exit a process it left behind (killed with it) is waited for, to be reaped once
    /// re-parented here; after that it is forgotten and logged (it has an owner that is not Runway, or it
    /// cannot die). A stop (P4) waits for these too, so this bounds how long leftovers can delay it.
    /// Default 5 s; not negative.
    public var orphanReapTimeout: TimeSpan
    /// Memory pressure handling (P3): nil (the default) turns it off.
    public var memoryPressure: MemoryPressureOptions?
    /// The first step of the settling looks (`SettlingLooks`): after a signal-mode app's launch, resumption or
    /// protocol line, this process's own children are checked 1, 3, 7 and 15 steps later for processes that left an
    /// app's tree (`setsid` and a double fork re-parent them here), then not until the next such event: each new one
    /// is attributed to its app by the `RUNWAY_APP` of its environment, so that signal mode stops and kills it with
    /// the app and the state file lists it. The apps' whole trees are scanned at every suspend, terminate, kill and
    /// exit as well. Default 250 ms; at least 1 ms. A process that double-forks and clears its `RUNWAY_APP` before
    /// the next look escapes signal mode (Docs/Security.md).
    public var descendantScanInterval: TimeSpan = .milliseconds(250)
    /// The most processes tracked per app. A scan stops there and logs a warning naming this setting: the
    /// processes beyond it are then neither stopped one by one (signal mode) nor listed in the state file,
    /// which bounds the work a fork bomb causes the loop. Default 4,096; at least 1.
    public var trackedProcessLimit: Int = 4_096
    /// A file where the supervisor keeps the pid and start time of every process it tracks, rewritten (at
    /// most once per loop turn) when they change. At start, whatever a previous process that used this file
    /// left, when that process is gone, is SIGKILLed and waited for before anything else runs; the file is
    /// refused (and a warning logged) when it or its directory can be written by another user, and left
    /// alone while its writer lives. nil (the default) keeps none; the daemon sets it (one file per control
    /// socket, under its state directory). Written only by the loop thread.
    public var stateFile: String?
    /// The most lines of one run of an app's stdout and stderr kept in memory for `runway logs` (one ring per
    /// app, and one for its previous run); older lines are dropped and counted. Default 1,000; at least 1.
    public var appLogLineLimit: Int = 1_000
    /// The most bytes of line text in one such ring; older lines are dropped and counted. Default 256 KiB; at
    /// least `outputLineLimitBytes`, so that no line has to be cut for it.
    public var appLogByteLimit: Int = 262_144
    /// File descriptors a launch must leave free under `RLIMIT_NOFILE`, for what this process opens on its own
    /// (clients of a control socket, files it writes): a launch that would leave fewer is refused before it opens
    /// anything, as a failure to start naming the limit and the reserve (`DescriptorBudget`). The daemon sets
    /// `ControlClientLimit` + `MetricsConnectionLimit` + 64. Default 128; not negative.
    public var descriptorReserve: Int = 128

    /// Options with every field given or defaulted; each parameter sets the property of the same name, whose
    /// documentation gives its meaning and default. Read by the scheduler once, in `RunwayScheduler.init`; later
    /// changes to a copy have no effect.
    public init(
        baseDirectory: String? = nil,
        searchDirectories: [String] = [],
        suspensionMechanism: SuspensionMechanism = .auto,
        confirmationTimeout: TimeSpan = .seconds(2),
        suspendDrainTimeout: TimeSpan = .milliseconds(50),
        outputLineLimitBytes: Int = 16_384,
        outputBytesPerTurn: Int = 65_536,
        outputLinesPerTurn: Int = 64,
        protocolLineLimitBytes: Int = 65_536,
        protocolWriteQueueLimitBytes: Int = 1 << 20,
        protocolMalformedLimit: Int = 3,
        protocolLineRateLimit: Int = 1_000,
        adjustsOOMScore: Bool = true,
        reapsOrphans: Bool = true,
        orphanReapTimeout: TimeSpan = .seconds(5),
        memoryPressure: MemoryPressureOptions? = nil
    ) {
        precondition(
            outputLineLimitBytes > 0 && protocolLineLimitBytes > 0 && protocolWriteQueueLimitBytes > 0
                && outputBytesPerTurn > 0 && outputLinesPerTurn > 0,
            "ProcessOptions limits must be positive"
        )
        precondition(orphanReapTimeout >= .zero, "orphanReapTimeout must not be negative, got \(orphanReapTimeout)")
        precondition(
            suspendDrainTimeout >= .zero,
            "suspendDrainTimeout must not be negative, got \(suspendDrainTimeout)"
        )
        self.baseDirectory = baseDirectory
        self.searchDirectories = searchDirectories
        self.suspensionMechanism = suspensionMechanism
        self.confirmationTimeout = confirmationTimeout
        self.confirmationPollMilliseconds = 1
        self.suspendDrainTimeout = suspendDrainTimeout
        self.outputLineLimitBytes = outputLineLimitBytes
        self.outputBytesPerTurn = outputBytesPerTurn
        self.outputLinesPerTurn = outputLinesPerTurn
        self.protocolLineLimitBytes = protocolLineLimitBytes
        self.protocolWriteQueueLimitBytes = protocolWriteQueueLimitBytes
        self.protocolMalformedLimit = protocolMalformedLimit
        self.protocolLineRateLimit = protocolLineRateLimit
        self.adjustsOOMScore = adjustsOOMScore
        self.reapsOrphans = reapsOrphans
        self.orphanReapTimeout = orphanReapTimeout
        self.memoryPressure = memoryPressure
    }
}

/// The suspension mechanism a process app actually uses (P1).
@_spi(Processes)
public enum ResolvedSuspensionMechanism: String, Hashable, Sendable, CustomStringConvertible {
    /// cgroup v2 `cgroup.freeze`, confirmed by `frozen 1` in `cgroup.events`.
    case freezer
    /// SIGSTOP/SIGCONT to the process group, confirmed by state `T` in `/proc/PID/stat`.
    case signal

    /// `freezer` or `signal`, as in status rows and logs.
    public var description: String { self.rawValue }
}

/// What the driver knows about one process app (K2 status rows).
@_spi(Processes)
public struct ProcessStatus: Hashable, Sendable {
    /// The running child's pid; nil when not running.
    public var pid: Int32?
    /// How the app is suspended; nil until it first runs.
    public var mechanism: ResolvedSuspensionMechanism?
    /// Why the freezer is not used, when `SuspensionMechanism` is `auto` and it fell back to signals.
    public var freezerUnavailableReason: String?
    /// True once the last suspend (or resume) was confirmed by the kernel; false while pending, when the
    /// confirmation timed out, or when the kernel refused the signal.
    public var suspensionConfirmed: Bool
    /// The app's cgroup directory when it uses the freezer.
    public var cgroupPath: String?
    /// True when the kernel refused the last suspend's or resume's signal (or `cgroup.freeze` write): it will not
    /// be confirmed (P1).
    public var suspensionRefused = false
    /// True while the app runs although it was sent SIGKILL: the kernel refused the signal and it has no cgroup
    /// to kill through (P2).
    public var killRefused = false
    /// How the last run ended.
    public var lastExit: ProcessExit?
    /// Whether the app is contained (the user it runs as, its cgroup); Docs/Security.md.
    public var containment: AppContainment = .notContained("not known")

    package init(
        pid: Int32? = nil,
        mechanism: ResolvedSuspensionMechanism? = nil,
        freezerUnavailableReason: String? = nil,
        suspensionConfirmed: Bool = false,
        cgroupPath: String? = nil,
        lastExit: ProcessExit? = nil
    ) {
        self.pid = pid
        self.mechanism = mechanism
        self.freezerUnavailableReason = freezerUnavailableReason
        self.suspensionConfirmed = suspensionConfirmed
        self.cgroupPath = cgroupPath
        self.lastExit = lastExit
    }
}
