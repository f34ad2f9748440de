import CLibUV
import RunwayCore

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
    /// The main process exited and was reaped by libuv.
    func child(_ child: ChildProcess, exited exit: ProcessExit)
}

/// One started child process: the libuv process handle, pipes for its stdout and stderr, and the parent's end
/// of its protocol socket (A4), which the child inherits as descriptor 3 (`RUNWAY_FD=3`).
///
/// The child runs in a session and process group of its own (`UV_PROCESS_DETACHED`, `setsid`), so signals to
/// the group (`-pid`) reach the processes it starts. libuv reaps it and reports the exit through `exit_cb`.
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
    weak var delegate: (any ChildProcessDelegate)?

    private let process = UnsafeMutablePointer<uv_process_t>.allocate(capacity: 1)
    // The handles and the reading state below belong to ChildProcess; they are internal, not private, only so that
    // ChildProcess+Streams.swift and ChildProcess+Output.swift reach them.
    let stdoutPipe = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
    let stderrPipe = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
    let channel = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
    /// Resumes paused output streams; initialised at the first pause, closed with the last output pipe.
    let resumeTimer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
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
    /// The token of the `message` last sent on the channel and not acknowledged yet (L2: one at a time). Written
    /// only by `ProcessSupervisor+Channel.swift`, which acknowledges it for the app when the channel closes on
    /// the app's side (Decision 39).
    var messageInFlight: MessageToken?

    /// - Parameters:
    ///   - options: `outputLineLimitBytes` (longer stdout/stderr lines are logged cut, marked truncated),
    ///     `protocolLineLimitBytes` (longer protocol lines are reported as `tooLong`), `outputBytesPerTurn` and
    ///     `outputLinesPerTurn` (`OutputThrottle`).
    init(app: AppID, loop: UnsafeMutablePointer<uv_loop_t>, options: ProcessOptions) {
        self.app = app
        self.loop = loop
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
        self.process.deallocate()
        self.stdoutPipe.deallocate()
        self.stderrPipe.deallocate()
        self.channel.deallocate()
        self.resumeTimer.deallocate()
        self.readBuffer.deallocate()
    }

    /// Spawns the program. On failure nothing stays open and the error names the call and errno.
    ///
    /// - Parameters:
    ///   - executable: A resolved path.
    ///   - arguments: `argv`, including `argv[0]`.
    ///   - environment: The complete environment (`KEY=value`).
    ///   - speaksProtocol: Creates the socketpair and passes it as descriptor 3.
    func start(
        executable: String,
        arguments: [String],
        environment: [String],
        workingDirectory: String?,
        speaksProtocol: Bool
    ) throws(ProcessStartError) {
        var pair: [Int32] = [-1, -1]
        if speaksProtocol {
            let status = pair.withUnsafeMutableBufferPointer { runway_socketpair($0.baseAddress) }
            guard status == 0 else { throw ProcessStartError(call: "socketpair", status: status) }
        }
        defer { if pair[1] >= 0 { close(pair[1]) } }  // The child's end: the child has its copy once spawned.

        var status = uv_pipe_init(self.loop, self.stdoutPipe, 0)
        precondition(status == 0, "uv_pipe_init cannot fail on a valid loop: \(status)")
        status = uv_pipe_init(self.loop, self.stderrPipe, 0)
        precondition(status == 0, "uv_pipe_init cannot fail on a valid loop: \(status)")
        let owner = Unmanaged.passUnretained(self).toOpaque()
        self.process.pointee.data = owner
        self.stdoutPipe.pointee.data = owner
        self.stderrPipe.pointee.data = owner
        self.channel.pointee.data = owner
        self.retainForHandle()
        self.retainForHandle()

        var stdio = [uv_stdio_container_t](repeating: uv_stdio_container_t(), count: speaksProtocol ? 4 : 3)
        stdio[0].flags = UV_IGNORE
        stdio[1].flags = uv_stdio_flags(UV_CREATE_PIPE.rawValue | UV_WRITABLE_PIPE.rawValue)
        stdio[1].data.stream = runway_pipe_as_stream(self.stdoutPipe)
        stdio[2].flags = uv_stdio_flags(UV_CREATE_PIPE.rawValue | UV_WRITABLE_PIPE.rawValue)
        stdio[2].data.stream = runway_pipe_as_stream(self.stderrPipe)
        if speaksProtocol {
            stdio[3].flags = UV_INHERIT_FD
            stdio[3].data.fd = pair[1]
        }

        let argv = CStringArray(arguments)
        let envp = CStringArray(environment)
        status = executable.withCString { file in
            (workingDirectory ?? "").withCString { cwd in
                stdio.withUnsafeMutableBufferPointer { stdioBuffer in
                    var options = uv_process_options_t()
                    options.exit_cb = { process, status, signal in
                        guard let process, let data = process.pointee.data else { return }
                        let child = Unmanaged<ChildProcess>.fromOpaque(data).takeUnretainedValue()
                        child.exited(status: status, signal: signal)
                    }
                    options.file = file
                    options.args = argv.pointer
                    options.env = envp.pointer
                    options.cwd = workingDirectory == nil ? nil : cwd
                    options.flags = UInt32(UV_PROCESS_DETACHED.rawValue)
                    options.stdio_count = Int32(stdioBuffer.count)
                    options.stdio = stdioBuffer.baseAddress
                    return uv_spawn(self.loop, self.process, &options)
                }
            }
        }
        guard status == 0 else {
            // libuv initialised the process handle even on failure; it must be closed like the pipes.
            self.retainForHandle()
            uv_close(runway_process_as_handle(self.process), ChildProcess.handleClosed)
            uv_close(runway_pipe_as_handle(self.stdoutPipe), ChildProcess.handleClosed)
            uv_close(runway_pipe_as_handle(self.stderrPipe), ChildProcess.handleClosed)
            if pair[0] >= 0 { close(pair[0]) }
            throw ProcessStartError(call: "uv_spawn", status: status)
        }
        self.retainForHandle()
        self.pid = self.process.pointee.pid
        self.startReadingOutput(self.stdoutPipe)
        self.startReadingOutput(self.stderrPipe)
        if speaksProtocol {
            Self.blockBrokenPipeSignal()
            status = uv_pipe_init(self.loop, self.channel, 0)
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

    /// Sends `signal` to the child's process group (the child and what it started), falling back to the
    /// child alone. Returns 0 or -errno.
    @discardableResult
    func signalGroup(_ signal: Int32) -> Int32 {
        guard self.pid > 0 else { return -ESRCH }
        let status = runway_kill(-self.pid, signal)
        return status == 0 || self.hasExited ? status : runway_kill(self.pid, signal)
    }

    // MARK: Lifetime

    private func exited(status: Int64, signal: Int32) {
        self.hasExited = true
        let exit: ProcessExit = signal != 0 ? .signaled(signal) : .exited(Int32(truncatingIfNeeded: status))
        uv_close(runway_process_as_handle(self.process), ChildProcess.handleClosed)
        self.delegate?.child(self, exited: exit)
    }

    /// Blocks SIGPIPE on the loop thread (the caller's), so that a write to a child that closed its end of the
    /// channel fails with EPIPE (reported as a write error) instead of killing the process: a write's SIGPIPE is
    /// sent to the writing thread, where it stays pending. Children do not inherit the mask (libuv clears it).
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

/// A process app could not be started.
struct ProcessStartError: Error, CustomStringConvertible {
    var call: String
    var status: Int32

    var description: String { "\(self.call) failed: \(String(cString: uv_strerror(self.status)))" }
}
