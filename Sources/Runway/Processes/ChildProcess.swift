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
    /// A frame on the protocol channel (A4).
    func child(_ child: ChildProcess, sent frame: LineFramer.Frame)
    /// The child's protocol channel closed (the child exited or closed its end).
    func childClosedChannel(_ child: ChildProcess)
    /// The main process exited and was reaped by libuv.
    func child(_ child: ChildProcess, exited exit: ProcessExit)
}

/// One started child process: the libuv process handle, pipes for its stdout and stderr, and the parent's end
/// of its protocol socket (A4), which the child inherits as descriptor 3 (`RUNWAY_FD=3`).
///
/// The child runs in a session and process group of its own (`UV_PROCESS_DETACHED`, `setsid`), so signals to
/// the group (`-pid`) reach the processes it starts. libuv reaps it and reports the exit through `exit_cb`.
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
    private let stdoutPipe = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
    private let stderrPipe = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
    private let channel = UnsafeMutablePointer<uv_pipe_t>.allocate(capacity: 1)
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
    private var openHandles = 0
    private var channelOpen = false

    /// True while the protocol channel is open for reading and writing.
    var isChannelOpen: Bool { self.channelOpen }
    private var stdoutFramer: LineFramer
    private var stderrFramer: LineFramer
    private var channelFramer = LineFramer(maximumLineBytes: 65_536)

    /// - Parameters:
    ///   - outputLineLimitBytes: stdout/stderr lines longer than this are logged cut, marked truncated.
    ///   - protocolLineLimitBytes: protocol lines longer than this are reported as `tooLong`.
    init(app: AppID, loop: UnsafeMutablePointer<uv_loop_t>, outputLineLimitBytes: Int, protocolLineLimitBytes: Int) {
        self.app = app
        self.loop = loop
        self.stdoutFramer = LineFramer(maximumLineBytes: outputLineLimitBytes)
        self.stderrFramer = LineFramer(maximumLineBytes: outputLineLimitBytes)
        self.channelFramer = LineFramer(maximumLineBytes: protocolLineLimitBytes)
    }

    deinit {
        self.process.deallocate()
        self.stdoutPipe.deallocate()
        self.stderrPipe.deallocate()
        self.channel.deallocate()
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
        self.startReading(self.stdoutPipe)
        self.startReading(self.stderrPipe)
        if speaksProtocol {
            status = uv_pipe_init(self.loop, self.channel, 0)
            precondition(status == 0, "uv_pipe_init cannot fail on a valid loop: \(status)")
            self.retainForHandle()
            status = uv_pipe_open(self.channel, pair[0])
            if status == 0 {
                self.channelOpen = true
                self.startReading(self.channel)
            } else {
                close(pair[0])
                uv_close(runway_pipe_as_handle(self.channel), ChildProcess.handleClosed)
            }
        }
    }

    // MARK: Protocol channel

    /// Bytes queued for the child and not yet written (a child that does not read lets this grow).
    var channelQueuedBytes: Int {
        self.channelOpen ? uv_stream_get_write_queue_size(runway_pipe_as_stream(self.channel)) : 0
    }

    /// Writes one line (a newline is added). Dropped when the channel is closed.
    func send(line: [UInt8]) {
        guard self.channelOpen else { return }
        // A failed write means the child's end is gone; its exit or the channel's EOF reports that.
        _ = writeCopy(of: line, terminator: UInt8(ascii: "\n"), to: runway_pipe_as_stream(self.channel))
    }

    /// Stops reading the protocol channel and closes it (after a violation, or once the child is gone).
    func closeChannel() {
        guard self.channelOpen else { return }
        self.channelOpen = false
        uv_close(runway_pipe_as_handle(self.channel), ChildProcess.handleClosed)
    }

    /// Sends `signal` to the child's process group (the child and what it started), falling back to the
    /// child alone. Returns 0 or -errno.
    @discardableResult
    func signalGroup(_ signal: Int32) -> Int32 {
        guard self.pid > 0 else { return -ESRCH }
        let status = runway_kill(-self.pid, signal)
        return status == 0 || self.hasExited ? status : runway_kill(self.pid, signal)
    }

    /// Closes the output pipes (once the exit has been handled and the last output read or abandoned).
    func closeOutput() {
        for pipe in [self.stdoutPipe, self.stderrPipe] where uv_is_closing(runway_pipe_as_handle(pipe)) == 0 {
            uv_close(runway_pipe_as_handle(pipe), ChildProcess.handleClosed)
        }
    }

    // MARK: Callbacks

    private func exited(status: Int64, signal: Int32) {
        self.hasExited = true
        let exit: ProcessExit = signal != 0 ? .signaled(signal) : .exited(Int32(truncatingIfNeeded: status))
        uv_close(runway_process_as_handle(self.process), ChildProcess.handleClosed)
        self.delegate?.child(self, exited: exit)
    }

    private func startReading(_ pipe: UnsafeMutablePointer<uv_pipe_t>) {
        _ = uv_read_start(
            runway_pipe_as_stream(pipe),
            { handle, _, buffer in
                guard let handle, let buffer, let data = handle.pointee.data else { return }
                let child = Unmanaged<ChildProcess>.fromOpaque(data).takeUnretainedValue()
                buffer.pointee = uv_buf_init(
                    child.readBuffer.baseAddress!.assumingMemoryBound(to: CChar.self),
                    UInt32(child.readBuffer.count)
                )
            },
            { stream, count, _ in
                guard let stream, let data = stream.pointee.data else { return }
                let child = Unmanaged<ChildProcess>.fromOpaque(data).takeUnretainedValue()
                child.read(from: stream, count: count)
            }
        )
    }

    private func read(from stream: UnsafeMutablePointer<uv_stream_t>, count: Int) {
        let isChannel = stream == runway_pipe_as_stream(self.channel)
        let isError = stream == runway_pipe_as_stream(self.stderrPipe)
        if count < 0 {
            // EOF or a read error: the other end is gone.
            if isChannel {
                for frame in self.channelFramer.finish() { self.delegate?.child(self, sent: frame) }
                self.closeChannel()
                self.delegate?.childClosedChannel(self)
            } else {
                self.deliverOutput(isError ? self.stderrFramer.finish() : self.stdoutFramer.finish(), isError: isError)
                let pipe = isError ? self.stderrPipe : self.stdoutPipe
                if uv_is_closing(runway_pipe_as_handle(pipe)) == 0 {
                    uv_close(runway_pipe_as_handle(pipe), ChildProcess.handleClosed)
                }
            }
            return
        }
        let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(self.readBuffer)[0..<count])
        if isChannel {
            for frame in self.channelFramer.append(bytes) {
                // A delegate may close the channel while handling a frame (violation): stop there.
                guard self.channelOpen else { return }
                self.delegate?.child(self, sent: frame)
            }
        } else if isError {
            self.deliverOutput(self.stderrFramer.append(bytes), isError: true)
        } else {
            self.deliverOutput(self.stdoutFramer.append(bytes), isError: false)
        }
    }

    private func deliverOutput(_ frames: [LineFramer.Frame], isError: Bool) {
        for frame in frames {
            switch frame {
            case .line(let bytes):
                self.delegate?.child(
                    self,
                    printed: String(decoding: bytes, as: UTF8.self),
                    isError: isError,
                    truncated: false
                )
            case .tooLong(let seen):
                self.delegate?.child(
                    self,
                    printed: "(a line of more than \(seen - 1) bytes was cut)",
                    isError: isError,
                    truncated: true
                )
            }
        }
    }

    private func retainForHandle() {
        self.openHandles += 1
        _ = Unmanaged.passUnretained(self).retain()
    }

    private static let handleClosed: uv_close_cb = { handle in
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

/// A NULL-terminated array of C strings that lives as long as this value.
final class CStringArray {
    let pointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    init(_ strings: [String]) {
        self.pointer = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { self.pointer[index] = strdup(string) }
        self.pointer[strings.count] = nil
        self.count = strings.count
    }

    private let count: Int

    deinit {
        for index in 0..<self.count { free(self.pointer[index]) }
        self.pointer.deallocate()
    }
}
