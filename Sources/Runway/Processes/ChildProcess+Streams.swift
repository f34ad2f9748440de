import CLibUV
import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The child's streams: the protocol channel (A4) and the stdout and stderr pipes, read into line framers and
/// reported to the delegate. Loop thread only.
extension ChildProcess {
    // MARK: Protocol channel

    /// Bytes queued for the child and not yet written (a child that does not read lets this grow).
    var channelQueuedBytes: Int {
        self.isChannelOpen ? uv_stream_get_write_queue_size(runway_pipe_as_stream(self.channel)) : 0
    }

    /// Writes one line (a newline is added). Dropped when the channel is closed.
    func send(line: [UInt8]) {
        guard self.isChannelOpen else { return }
        // A failed write means the child's end is gone; its exit or the channel's EOF reports that.
        _ = writeCopy(of: line, terminator: UInt8(ascii: "\n"), to: runway_pipe_as_stream(self.channel))
    }

    /// Stops reading the protocol channel and closes it (after a violation, or once the child is gone).
    func closeChannel() {
        guard self.isChannelOpen else { return }
        self.isChannelOpen = false
        uv_close(runway_pipe_as_handle(self.channel), ChildProcess.handleClosed)
    }

    /// Closes the output pipes (once the exit has been handled and the last output read or abandoned).
    func closeOutput() {
        for pipe in [self.stdoutPipe, self.stderrPipe] where uv_is_closing(runway_pipe_as_handle(pipe)) == 0 {
            uv_close(runway_pipe_as_handle(pipe), ChildProcess.handleClosed)
        }
    }

    // MARK: Reading

    /// Starts reading `pipe` into the shared buffer; each read is framed by `read(from:count:)`.
    func startReading(_ pipe: UnsafeMutablePointer<uv_pipe_t>) {
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
                let frames = isError ? self.stderrFramer.finish() : self.stdoutFramer.finish()
                self.deliverOutput(frames, isError: isError)
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
                guard self.isChannelOpen else { return }
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
                let line = String(decoding: bytes, as: UTF8.self)
                self.delegate?.child(self, printed: line, isError: isError, truncated: false)
            case .tooLong(let seen):
                let note = "(a line of more than \(seen - 1) bytes was cut)"
                self.delegate?.child(self, printed: note, isError: isError, truncated: true)
            }
        }
    }
}
