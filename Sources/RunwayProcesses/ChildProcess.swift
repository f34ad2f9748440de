import CLibUV
import CRunwayProcess
@_spi(Driver) @_spi(Processes) import RunwayCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a `ChildProcess` reports to its owner, on the loop thread.
protocol ChildProcessDelegate: AnyObject {
    /// A complete line on the child's stdout (`isError` false) or stderr; `truncated` when it was cut at the
    /// output line limit.
    func child(_ child: ChildProcess, printed line: String, isError: Bool, truncated: Bool)
    /// Reading stdout (`isError` false) or stderr was paused at the output budget of a loop turn (`OutputThrottle`)
    /// `pauses` times since the last report; reported at most once per `ChildProcess.throttleNoticeInterval`.
    func child(_ child: ChildProcess, throttledOutput isError: Bool, pauses: Int)
    /// A frame on the protocol channel (A4).
    func child(_ child: ChildProcess, sent frame: LineFramer.Frame)
    /// The child's protocol channel closed on its side: end of file (`status` is `UV_EOF`: the child exited or
    /// closed its end) or a read or write error (a libuv status). The channel is already closed here.
    func childClosedChannel(_ child: ChildProcess, status: Int32)
    /// The main process exited and was reaped through its pidfd.
    func child(_ child: ChildProcess, exited exit: ProcessExit)
}

/// One started child process: its pid and pidfd (polled for the exit), pipes for its stdout and stderr, and the
/// parent's end of its protocol socket (A4), which the child inherits as descriptor 3 (`RUNWAY_FD=3`).
///
/// The child runs in a session and process group of its own (`setsid` in `runway_spawn`), so signals to
/// the group (`-pid`) reach the processes it starts. Its pidfd, polled on the loop, reports the exit, and
/// `waitid(P_PIDFD)` reaps it (`ChildProcess+Exit.swift`).
///
/// Output is read under `OutputThrottle` (`ProcessOptions.outputBytesPerTurn`, `outputLinesPerTurn`): a stream
/// that spends its budget stops being read and resumes from a 1 ms timer (`ChildProcess+Output.swift`).
///
/// Lifetime: `start` retains the object on behalf of its open libuv handles; each handle's close callback
/// gives up its share, and the last one releases it. Loop thread only; not thread-safe.
final class ChildProcess {
    let app: AppID
    let loop: UnsafeMutablePointer<uv_loop_t>
    private(set) var pid: Int32 = 0
    private(set) var hasExited = false
    /// The start time of the main process (clock ticks after boot, as `/proc/PID/stat` shows it) when the boot clock
    /// around its spawn tells it (`BootClockStartTime`); nil when a tick boundary fell inside the spawn.
    private(set) var startTicks: UInt64?
    /// True when the child shared this process's descriptor table until it took the spawn slots,
    /// false when it got a copy of the table. For tests.
    private(set) var sharedDescriptors = false
    weak var delegate: (any ChildProcessDelegate)?

    /// Polls the child's pidfd, readable once it exits (`ChildProcess+Exit.swift`).
    let exitPoll = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
    /// The child's pidfd (close-on-exec); -1 before the start and once the exit is reaped.
    var pidfd: Int32 = -1
    /// Reports the reaped exit in the check phase of the turn (`ChildProcess+Exit.swift`).
    let exitCheck = UnsafeMutablePointer<uv_check_t>.allocate(capacity: 1)
    /// The exit reaped and not reported yet.
    var pendingExit: ProcessExit?
    // The handles and the reading state below belong to ChildProcess; they are internal, not private, only so that
    // ChildProcess+Streams.swift and ChildProcess+Output.swift reach them.
    let stdoutPipe = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
    let stderrPipe = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
    let channel = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
    /// Resumes paused output streams; initialised at the first pause, closed with the last output pipe.
    let resumeTimer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    /// Where reads land: the supervisor's buffer, shared by its children (`ReadBuffer`).
    let sharedReadBuffer: ReadBuffer
    var readBuffer: UnsafeMutableRawBufferPointer { self.sharedReadBuffer.bytes }
    private var openHandles = 0
    /// True while the protocol channel is open for reading and writing. Set only by ChildProcess.
    var isChannelOpen = false
    var channelFramer: LineFramer
    var stdoutThrottle: OutputThrottle
    var stderrThrottle: OutputThrottle
    /// Output reading state, written only by ChildProcess+Output.swift.
    var isStdoutPaused = false
    var isStderrPaused = false
    var isResumeTimerOpen = false
    var throttleNotices = ThrottleNotices()
    /// The child's `/proc/PID/oom_score_adj`, open for writing from its first write to its exit, so a write
    /// costs no open (`ChildProcess+OOMScore.swift`), or -1.
    var oomScoreFile: Int32 = -1
    /// The token of the `message` last sent on the channel and not acknowledged yet (L2: one at a time). Written
    /// only by `ProcessSupervisor+Channel.swift`, which acknowledges it for the app when the channel closes on
    /// the app's side.
    var messageInFlight: MessageToken?

    /// - Parameters:
    ///   - options: `outputLineLimitBytes` (longer stdout/stderr lines are logged cut, marked truncated),
    ///     `protocolLineLimitBytes` (longer protocol lines are reported as `tooLong`), `outputBytesPerTurn` and
    ///     `outputLinesPerTurn` (`OutputThrottle`).
    ///   - readBuffer: The buffer reads land in, shared with the other children of this loop thread (the
    ///     supervisor's); a new one of its own by default.
    init(app: AppID, loop: UnsafeMutablePointer<uv_loop_t>, options: ProcessOptions, readBuffer: ReadBuffer? = nil) {
        self.app = app
        self.loop = loop
        self.sharedReadBuffer = readBuffer ?? ReadBuffer()
        self.channelFramer = LineFramer(maximumLineBytes: options.protocolLineLimitBytes)
        let throttle = OutputThrottle(
            bytesPerTurn: options.outputBytesPerTurn,
            linesPerTurn: options.outputLinesPerTurn,
            lineLimitBytes: options.outputLineLimitBytes,
            keepsCutPrefix: true
        )
        self.stdoutThrottle = throttle
        self.stderrThrottle = throttle
    }

    deinit {
        self.closeOOMScoreFile()
        self.exitPoll.deallocate()
        self.exitCheck.deallocate()
        self.stdoutPipe.deallocate()
        self.stderrPipe.deallocate()
        self.channel.deallocate()
        self.resumeTimer.deallocate()
    }

    /// Spawns the program straight into place (`runway_spawn`: clone3 into `cgroup` with a pidfd, no shell), and
    /// watches the pidfd for its exit. On failure nothing stays open and the error names the step and errno.
    ///
    /// - Parameters:
    ///   - executable: A resolved path.
    ///   - arguments: `argv`, including `argv[0]`.
    ///   - environment: The complete environment (`KEY=value`).
    ///   - cgroup: The cgroup v2 directory the child starts in (its first instruction runs there), or nil.
    ///   - joinsCgroupByWrite: The child joins `cgroup` by writing `cgroup.procs` before it execs instead of being
    ///     cloned into it (`KilledCgroups`).
    ///   - speaksProtocol: Creates the socketpair and passes it as descriptor 3.
    ///   - limits: setrlimit values the child applies to itself before its exec, and the cgroup v1 leaves it joins
    ///     first; a failure is reported as a step.
    ///   - user: The user the child becomes before it execs (groups, gid, uid), or nil for this process's.
    ///   - cgroupNamespace: With a `cgroup`, the child enters a cgroup namespace of its own rooted there (needs
    ///     CAP_SYS_ADMIN: a root daemon).
    func start(
        executable: String,
        arguments: [String],
        environment: [String],
        workingDirectory: String?,
        cgroup: AppCgroup?,
        joinsCgroupByWrite: Bool = false,
        speaksProtocol: Bool,
        limits: ResourceLimitRequest? = nil,
        user: AppUser? = nil,
        cgroupNamespace: Bool = false
    ) throws(ProcessStartError) {
        var pair: [Int32] = [-1, -1]
        if speaksProtocol {
            let status = pair.withUnsafeMutableBufferPointer { runway_socketpair($0.baseAddress) }
            guard status == 0 else { throw ProcessStartError(call: "socketpair", status: status) }
        }
        defer { if pair[1] >= 0 { close(pair[1]) } }  // The child's end: the child has its copy once spawned.
        let outputs = try OutputPipes()
        defer { outputs.closeChildEnds() }
        var cgroupDirectory: Int32 = -1
        if let cgroup {
            cgroupDirectory = cgroup.openFile(".", O_RDONLY | O_DIRECTORY)
            guard cgroupDirectory >= 0 else {
                let status = -errno
                outputs.closeParentEnds()
                if pair[0] >= 0 { close(pair[0]) }
                throw ProcessStartError(call: "open \(cgroup.path)", status: status)
            }
        }
        defer { if cgroupDirectory >= 0 { close(cgroupDirectory) } }
        let v1Procs = try Self.openCgroupV1Procs(limits?.cgroupV1Directories ?? []) {
            outputs.closeParentEnds()
            if pair[0] >= 0 { close(pair[0]) }
        }
        defer { for descriptor in v1Procs { close(descriptor) } }

        let argv = CStringArray(arguments)
        let envp = CStringArray(environment)
        var result = runway_spawn_result()
        let groups = user?.groups ?? []
        let entries = limits?.entries ?? []
        func spawn(namespace: Bool) -> Int32 {
            executable.withCString { file in
                (workingDirectory ?? "").withCString { cwd in
                    groups.withUnsafeBufferPointer { groupList in
                        var credentials = runway_spawn_user()
                        credentials.uid = user?.uid ?? 0
                        credentials.gid = user?.gid ?? 0
                        credentials.groups = groupList.baseAddress
                        credentials.group_count = groupList.count
                        return withUnsafePointer(to: &credentials) { credentialsPointer in
                            var request = runway_spawn_request()
                            request.new_cgroup_namespace = namespace ? 1 : 0
                            request.user = user == nil ? nil : credentialsPointer
                            request.path = file
                            request.argv = UnsafePointer(argv.pointer)
                            request.envp = UnsafePointer(envp.pointer)
                            request.working_directory = workingDirectory == nil ? nil : cwd
                            request.cgroup_fd = cgroupDirectory
                            request.join_by_write = joinsCgroupByWrite ? 1 : 0
                            request.stdout_fd = outputs.stdout.write
                            request.stderr_fd = outputs.stderr.write
                            request.channel_fd = pair[1]
                            return entries.withUnsafeBufferPointer { limitList in
                                request.rlimits = limitList.baseAddress
                                request.rlimit_count = Int32(limitList.count)
                                return v1Procs.withUnsafeBufferPointer { procs in
                                    request.cgroup_v1_procs_fds = procs.baseAddress
                                    request.cgroup_v1_count = Int32(procs.count)
                                    return runway_spawn(&request, &result)
                                }
                            }
                        }
                    }
                }
            }
        }
        let namespace = cgroup != nil && cgroupNamespace && !CgroupNamespaceSupport.refused.load(ordering: .relaxed)
        let clock = BootClockStartTime()
        var status = spawn(namespace: namespace)
        if namespace && status == -EPERM && result.step == Int32(RUNWAY_SPAWN_CGROUP_NAMESPACE.rawValue) {
            // Refused (a systemd unit's RestrictNamespaces=yes, a seccomp filter): every later app starts without
            // one, and the supervisor says so once. The failed child was reaped; the pipes are still unused.
            CgroupNamespaceSupport.refused.store(true, ordering: .relaxed)
            status = spawn(namespace: false)
        }
        guard status == 0 else {
            outputs.closeParentEnds()
            if pair[0] >= 0 { close(pair[0]) }
            let call = limits?.failedCall(step: result.step) ?? ProcessStartError.stepName(result.step)
            throw ProcessStartError(call: call, status: status)
        }
        self.startTicks = clock.startTicks()
        self.pid = result.pid
        self.pidfd = result.pidfd
        self.sharedDescriptors = result.shared_descriptors != 0
        let owner = Unmanaged.passUnretained(self).toOpaque()
        self.exitPoll.pointee.data = owner
        self.stdoutPipe.pointee.data = owner
        self.stderrPipe.pointee.data = owner
        self.channel.pointee.data = owner
        self.watchExit()
        self.openOutput(self.stdoutPipe, outputs.stdout.read)
        self.openOutput(self.stderrPipe, outputs.stderr.read)
        if speaksProtocol {
            Self.blockBrokenPipeSignal()
            var status = uv_pipe_init(self.loop, self.channel, 0)
            precondition(status == 0, "uv_pipe_init cannot fail on a valid loop: \(status)")
            self.retainForHandle()
            status = uv_pipe_open(self.channel, pair[0])
            if status == 0 {
                self.isChannelOpen = true
                self.startReadingChannel()
            } else {
                close(pair[0])
                uv_close(runway_pipe_as_handle(self.channel), ChildProcess.handleClosed)
            }
        }
    }

    /// The spawn slots of `runway_spawn` (one set per process), -1 each before their first use. For tests.
    static var spawnSlots: [Int32] { (0..<4).map { runway_spawn_slot($0) } }

    /// Closes the spawn slots and forgets them, as before the first spawn. For tests; any thread.
    static func resetSpawnSlots() { runway_spawn_slots_reset() }

    // MARK: Lifetime

    /// Reports the exit once the pidfd's poll handle has reaped the child (`ChildProcess+Exit.swift`).
    func exited(_ exit: ProcessExit) {
        self.hasExited = true
        self.closeOOMScoreFile()
        self.delegate?.child(self, exited: exit)
    }

    /// Blocks SIGPIPE on the loop thread (the caller's), so that a write to a child that closed its end of the
    /// channel fails with EPIPE (reported as a write error) instead of killing the process: a write's SIGPIPE is
    /// sent to the writing thread, where it stays pending. Children do not inherit the mask (`runway_spawn` clears it).
    private static func blockBrokenPipeSignal() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    func retainForHandle() {
        self.openHandles += 1
        _ = Unmanaged.passUnretained(self).retain()
    }

    /// The close callback of every handle: gives up that handle's share of the object.
    static let handleClosed: uv_close_cb = { handle in
        guard let handle, let data = handle.pointee.data else { return }
        let child = Unmanaged<ChildProcess>.fromOpaque(data)
        child.takeUnretainedValue().openHandles -= 1
        child.release()
    }
}
