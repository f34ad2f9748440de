import CLibUV
import CRunwayProcess
import Logging
@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayLoop
import RunwayProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the supervisor reports to the driver, on the loop thread. The driver feeds these to the core.
package protocol ProcessSupervisorDelegate: AnyObject {
    func processExited(_ app: AppID, exit: ProcessExit)
    func processFailedToStart(_ app: AppID, error: String)
    func processViolatedProtocol(_ app: AppID, reason: String)
    func processAcknowledged(_ token: MessageToken, app: AppID)
    /// A line from a protocol child: an acknowledgement (nothing to answer) or a request, whose answer the
    /// delegate passes to `reply`, once, before anything the request causes reaches the app (so that the answer
    /// to the last `endBackgroundTask` is written before the app is frozen).
    func processRequested(_ request: AppToRunway, app: AppID, reply: @escaping (RunwayToApp) -> Void)
    /// The kernel showed the app's pending suspension (`suspended`) or resumption done (P1): the poll that saw it.
    func processSuspensionConfirmed(_ app: AppID, suspended: Bool)
}

/// Runs the process apps' side of the core's actions (Behaviour.md section 5, A4, A5) and reports what the children
/// do. It makes no policy decision: what to do and when comes from the core's actions and from `ProcessOptions`; the
/// few rules of its own are pure values it asks and whose answer it performs (`SuspensionMechanismChoice`,
/// `SuspensionConfirmation`, `SuspensionDrain`, `HousekeepingTickSchedule`, `ScanCadence`, `SettlingLooks`,
/// `LeftoverWait`, `KilledProcessWait`, `StateFlushSchedule`, `ProtocolPolicer`: Architecture.md, "The edge decides
/// mechanism, never lifecycle"). One job per file:
/// - `ProcessSupervisor+Managed.swift`: what is kept per app (`Managed`) and its transitions; `Orphan`.
/// - `ProcessSupervisor+Launching.swift`: `.spawn`, the mechanism and cgroup of each app, program and
///   environment.
/// - `ProcessSupervisor+Suspending.swift`: `.suspend`, `.resume` and the kernel's confirmation (P1).
/// - `ProcessSupervisor+Draining.swift`: a `.suspend` waits until a protocol app has read its channel.
/// - `ProcessSupervisor+Reaping.swift`: `.sendTerminateSignal`, `.kill`, the child's exit and what it left
///   behind (P2).
/// - `ProcessSupervisor+Channel.swift`: `.deliver`, the app protocol (A4, A5) and the children's output.
/// - `ProcessSupervisor+Tick.swift`: the housekeeping timer that polls confirmations and leftovers.
/// - `ProcessSupervisor+Tracking.swift`: every process of each app (descendants, double-forked ones too).
/// - `ProcessSupervisor+Zombies.swift`: reaps every exited child this process inherits (SIGCHLD).
/// - `ProcessSupervisor+Batching.swift`: work a batch makes redundant (`oom_score_adj` once per event, the
///   environment once per turn).
/// - `ProcessSupervisor+StateFile.swift`: what the state file lists; `StateFileRecorder` owns the file a restarted
///   daemon reads to end what was left.
/// - `ProcessSupervisor+Limits.swift`: an app's resource limits at its launch (P5).
///
/// Parts that own their state: `StateFileRecorder` and `ProcessScanState` (each with its timer, closed by `close`)
/// and `CgroupPlacement`.
///
/// Threading: loop thread only; not thread-safe. Every entry point is called by `LoopDriver` on its loop;
/// libuv callbacks arrive on the same thread.
///
/// Time: reads `loop.turnNow` (the loop turn's clock reading) and never arms a deadline of the core's.
/// Confirmations and leftovers are polled every `ProcessOptions.confirmationPollMilliseconds` (1 ms) by one
/// libuv timer that runs only while something is pending, up to `confirmationTimeout` and `orphanReapTimeout`;
/// this process's children are checked in a short series after a signal-mode app's launch, resumption or line
/// (`SettlingLooks`, from `descendantScanInterval`), and never while nothing happens. Only `init` (with a
/// state file) and `close` (with unattributed processes) read the monotonic clock: each waits up to
/// `orphanReapTimeout` for the processes it killed to die (`KilledProcessWait`).
package final class ProcessSupervisor: ChildProcessDelegate {
    let loop: EventLoopThread
    let options: ProcessOptions
    let logger: Logger
    package weak var delegate: (any ProcessSupervisorDelegate)?
    /// Called when a suspension was not confirmed within `confirmationTimeout` (P1), for the metrics.
    package var suspensionUnconfirmed: (AppID) -> Void = { _ in }
    /// Called with the signal's name (`SIGSTOP`, ...) when the kernel refused a signal to one of the app's
    /// processes (`+SignalRefusals`), for the metrics.
    package var signalRefusedByKernel: (AppID, String) -> Void = { _, _ in }

    /// Every registered app. Written only by the supervisor's own files.
    var apps: [AppID: Managed] = [:]
    /// The descriptor table size `reserveDescriptors` last asked for; 0 before the first.
    var reservedDescriptors = 0
    /// What the apps' runs hold of `RLIMIT_NOFILE`, and the reserve a launch may not take (`+Descriptors`).
    var descriptors: DescriptorBudget
    /// Leftovers killed with their app and not reaped yet (`ProcessSupervisor+Reaping.swift`).
    var leftovers = LeftoverProcesses()
    /// Runway's own cgroup directory, open, and the apps' cgroup v1 leaves (`CgroupPlacement`).
    let cgroups: CgroupPlacement
    /// The buffer every child's reads land in.
    let readBuffer = ReadBuffer()
    /// The housekeeping timer (`ProcessSupervisor+Tick.swift`).
    let tick = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    var tickSchedule: HousekeepingTickSchedule
    /// The apps the tick looks at: each with a drain or a pending confirmation is in it (`+Tick`).
    var tickApps: Set<AppID> = []
    /// Pending `oom_score_adj` writes, the turn's environment and the tick's next-turn arming (`+Batching`).
    var batch = SupervisorBatchState()
    /// The settling looks' timer, the unattributed processes and what the scans keep between them
    /// (`ProcessScanState`, `+Tracking`).
    let processScan: ProcessScanState
    /// How often each part read or wrote the kernel's files (tests).
    var scanCounts = ProcessScanCounts()
    /// Registered apps by bundle identifier, for `RUNWAY_APP` in a child's environment.
    var appsByBundleIdentifier: [String: AppID] = [:]
    /// SIGCHLD, for the zombie sweep (`+Zombies`); nil without `reapsOrphans`.
    var childSignal: UnsafeMutablePointer<uv_signal_t>?
    /// The state file a restarted daemon reads, its flush timer and what `init` ended (`StateFileRecorder`).
    let stateRecorder: StateFileRecorder
    /// Every app's captured stdout and stderr (`AppLogStore`).
    package let logs: AppLogStore
    /// This process's session.
    let ownSession: Int32
    /// This process's pid, read once: glibc's `getpid()` is a system call each time, and the confirmation and
    /// terminate scans need it once per app (this process never forks: its children exec before running Swift).
    let ownPID: Int32
    private(set) var closed = false
    private var finishWaiters: [() -> Void] = []

    /// Starts the supervisor's handles, becomes a child subreaper (`reapsOrphans`) and, with a state file,
    /// ends what a predecessor left before returning.
    package init(loop: EventLoopThread, options: ProcessOptions, logger: Logger) {
        self.loop = loop
        self.options = options
        self.logger = logger
        self.tickSchedule = HousekeepingTickSchedule(intervalMilliseconds: options.confirmationPollMilliseconds)
        self.ownSession = getsid(0)
        self.ownPID = getpid()
        self.descriptors = Self.descriptorBudget(reserve: options.descriptorReserve)
        OpenSupervisors.open()
        self.cgroups = CgroupPlacement(logger: logger)
        self.processScan = ProcessScanState(loop: loop.handles.loop)
        self.stateRecorder = StateFileRecorder(path: options.stateFile, loop: loop.handles.loop, logger: logger)
        self.logs = AppLogStore(lineLimit: options.appLogLineLimit, byteLimit: options.appLogByteLimit) { app, text in
            logger.warning("app output file", metadata: ["app": "\(app)", "problem": "\(text)"])
        }
        let owner = Unmanaged.passUnretained(self).toOpaque()
        let status = uv_timer_init(loop.handles.loop, self.tick)
        precondition(status == 0, "uv_timer_init cannot fail on a valid loop: \(status)")
        self.tick.pointee.data = owner
        self.processScan.onScanDue = { [unowned self] in self.scanFired() }
        if options.reapsOrphans {
            let status = runway_set_child_subreaper()
            if status != 0 {
                logger.info(
                    "cannot become a child subreaper; orphans of apps go to pid 1",
                    metadata: ["errno": .stringConvertible(-status)]
                )
            }
            self.startReapingZombies()
        }
        self.takeOverStateFile()
        self.cgroups.removeStaleV1Directories()
    }

    /// Registers an app and, when it will use the freezer, creates its cgroup now, so that launching it costs
    /// no mkdir. The cgroup is kept across runs (thawed after each exit) and removed when the supervisor closes.
    package func register(_ app: AppID, spec: ProcessSpec) {
        self.register([(app, spec)])
    }

    /// Registers apps as `register(_:spec:)` does each, growing the descriptor table once for all of them.
    package func register(_ apps: [(app: AppID, spec: ProcessSpec)]) {
        for (app, spec) in apps {
            var managed = Managed(spec: spec, policer: self.makePolicer())
            self.prepareMechanism(app, &managed)
            self.apps[app] = managed
            self.appsByBundleIdentifier[app.bundleIdentifier] = app
            self.logs.register(app, files: spec.outputFiles)
        }
        self.reserveDescriptors()
    }

    /// The most descriptors a running app holds here: its pidfd, stdout and stderr, `oom_score_adj`, protocol channel,
    /// `cgroup.freeze` and `cgroup.events` (Docs/Deployment.md, `LimitNOFILE`), and one to spare.
    static let descriptorsPerApp = 8

    /// Grows the descriptor table, at registration, to what every registered app running at once
    /// holds (`descriptorsPerApp` each) beyond what is open now, rounded up to a power of two; only when that is more
    /// than the last reservation. Within RLIMIT_NOFILE: above it, up to the limit.
    func reserveDescriptors() {
        let wanted = self.apps.count * Self.descriptorsPerApp + 64
        guard wanted > self.reservedDescriptors else { return }
        var target = 128
        while target < wanted { target *= 2 }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(target) {
            target = Int(limit.rlim_cur)
        }
        guard target > self.reservedDescriptors else { return }
        self.reservedDescriptors = target
        _ = runway_reserve_descriptors(Int32(target))
    }

    /// A fresh policer for one run of a protocol child, with the limits of `options`.
    func makePolicer() -> ProtocolPolicer {
        ProtocolPolicer(
            malformedLimit: self.options.protocolMalformedLimit,
            lineLimit: self.options.protocolLineRateLimit,
            writeQueueLimitBytes: self.options.protocolWriteQueueLimitBytes
        )
    }

    /// What the supervisor knows of one app (K2 status rows); nil when it is not registered.
    package func status(of app: AppID) -> ProcessStatus? {
        guard let managed = self.apps[app] else { return nil }
        var status = ProcessStatus(
            pid: managed.child.flatMap { $0.hasExited ? nil : $0.pid },
            mechanism: managed.choice?.mechanism,
            freezerUnavailableReason: managed.choice?.fallbackReason,
            suspensionConfirmed: managed.confirmation?.isConfirmed ?? false,
            cgroupPath: managed.choice?.mechanism == .freezer ? managed.cgroup?.path : nil,
            lastExit: managed.lastExit
        )
        status.containment = self.containment(of: managed)
        status.killRefused = managed.killRefused && status.pid != nil
        status.suspensionRefused = managed.confirmation?.status == .refused
        return status
    }

    /// The resident bytes of every running app's processes (the `rss` pressure source, P3).
    package func residentBytes() -> UInt64 {
        var total: UInt64 = 0
        for managed in self.apps.values {
            guard let child = managed.child, !child.hasExited else { continue }
            let pids = managed.cgroup?.processes ?? ProcFS.members(ofProcessGroup: child.pid)
            for pid in pids { total += ProcFS.residentBytes(pid) ?? 0 }
        }
        return total
    }

    /// `.setOOMScoreAdjust`: writes `value` to the running child's `/proc/PID/oom_score_adj`, so that the
    /// kernel's OOM killer follows the core's purge order (P3). Does nothing when `options.adjustsOOMScore` is
    /// off or the app has no running child. The value is the core's decision; this only writes it, when the
    /// runner has drained the event's actions (`flushOOMScores`): the last value of the list wins.
    ///
    /// - Parameters:
    ///   - value: Within -1000...1000 (the kernel's range).
    package func setOOMScoreAdjust(_ value: Int, for app: AppID) {
        precondition((-1000...1000).contains(value), "oom_score_adj \(value) for \(app) is outside -1000...1000")
        self.deferOOMScoreAdjust(value, for: app)
    }

    // MARK: Closing

    /// Calls `body` once every process an app left behind is reaped (or forgotten, `orphanReapTimeout` after
    /// the exit), then closes the supervisor (its cgroups are removed). Called when the scheduler stops (P4).
    package func finish(then body: @escaping () -> Void) {
        self.refreshTracking()
        self.finishWaiters.append(body)
        self.finishIfSettled()
    }

    /// Runs the `finish` waiters once no leftover is waited for. Called by `finish` and by each tick.
    func finishIfSettled() {
        guard !self.finishWaiters.isEmpty, self.leftovers.isEmpty else { return }
        self.close()
        let waiters = self.finishWaiters
        self.finishWaiters = []
        for waiter in waiters { waiter() }
    }

    /// Stops the timer, ends the unattributed processes (`endUnattributed`) and removes Runway's cgroup directories.
    func close() {
        guard !self.closed else { return }
        self.stopTicking()
        self.stopScanning()
        self.refreshTracking()
        self.endUnattributed()
        self.releaseStateFile()
        self.logs.close()
        self.closed = true
        uv_timer_stop(self.tick)
        uv_close(runway_timer_as_handle(self.tick)) { handle in handle?.deallocate() }
        self.processScan.close()
        self.stateRecorder.close()
        if self.options.reapsOrphans { self.sweepZombies() }
        self.stopReapingZombies()
        for (app, managed) in self.apps {
            // A child whose output was paused at its last turn still holds its pipes and resume timer, and itself
            // through them: the loop does not turn again to read them to the end, so they close here.
            managed.child?.closeOutput()
            managed.cgroupFiles?.close()
            guard let cgroup = managed.cgroup else { continue }
            // An empty leaf goes with one rmdir; one with cgroups the app made below it (or a process still dying)
            // is emptied and removed deepest first.
            let status = cgroup.remove() == 0 ? 0 : cgroup.removeTree()
            if status != 0 {
                self.logger.info(
                    "cannot remove the app's cgroup",
                    metadata: ["app": "\(app)", "cgroup": "\(cgroup.path)", "errno": .stringConvertible(status)]
                )
            }
        }
        self.cgroups.close()
    }
}
