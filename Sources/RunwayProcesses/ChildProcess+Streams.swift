import CLibUV
import RunwayCore
import RunwayLoop

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The child's protocol channel (A4): lines read into a framer and reported to the delegate, lines written, and
/// the end of the channel on the child's side (end of file, a read or a write error), reported once. The stdout
/// and stderr pipes are read in `ChildProcess+Output.swift`. Loop thread only.
extension ChildProcess {
    /// Bytes queued for the child and not yet written (a child that does not read lets this grow).
    var channelQueuedBytes: Int {
        self.isChannelOpen ? uv_stream_get_write_queue_size(runway_pipe_as_stream(self.channel)) : 0
    }

    /// Writes one line (a newline is added). Dropped when the channel is closed. A write that fails, now or once
    /// queued, closes the channel and is reported as `childClosedChannel` (the child's end is gone).
    func send(line: [UInt8]) {
        guard self.isChannelOpen else { return }
        let status = writeCopy(
            of: line,
            terminator: UInt8(ascii: "\n"),
            to: runway_pipe_as_stream(self.channel),
            completion: ChildProcess.channelWritten
        )
        if status != 0 { self.channelFailed(status: status) }
    }

    /// Stops reading the protocol channel and closes it (after a violation, or once the child is gone). Writes
    /// still queued are cancelled, not reported.
    func closeChannel() {
        guard self.isChannelOpen else { return }
        self.isChannelOpen = false
        uv_close(runway_pipe_as_handle(self.channel), ChildProcess.handleClosed)
    }

    /// Starts reading the channel into the shared buffer.
    func startReadingChannel() {
        _ = uv_read_start(
            runway_pipe_as_stream(self.channel),
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
                Unmanaged<ChildProcess>.fromOpaque(data).takeUnretainedValue().readChannel(count: count)
            }
        )
    }

    private func readChannel(count: Int) {
        guard count >= 0 else {
            // End of file or a read error: the other end is gone. The last unfinished line, then the report.
            for frame in self.channelFramer.finish() {
                guard self.isChannelOpen else { return }
                self.delegate?.child(self, sent: frame)
            }
            self.channelFailed(status: Int32(truncatingIfNeeded: count))
            return
        }
        let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(self.readBuffer)[0..<count])
        for frame in self.channelFramer.append(bytes) {
            // A delegate may close the channel while handling a frame (violation): stop there.
            guard self.isChannelOpen else { return }
            self.delegate?.child(self, sent: frame)
        }
    }

    /// The channel ended on the child's side: closes it and reports it once (not after a close of Runway's own).
    private func channelFailed(status: Int32) {
        guard self.isChannelOpen else { return }
        self.closeChannel()
        self.delegate?.childClosedChannel(self, status: status)
    }

    /// The completion of every channel write: frees the copy; a failure other than a cancellation (the channel
    /// was closed by Runway) ends the channel.
    private static let channelWritten: uv_write_cb = { request, status in
        guard let request else { return }
        let stream = request.pointee.handle
        releaseWriteCopy(request)
        guard status < 0, status != UV_ECANCELED.rawValue, let data = stream?.pointee.data else { return }
        Unmanaged<ChildProcess>.fromOpaque(data).takeUnretainedValue().channelFailed(status: status)
    }
}
