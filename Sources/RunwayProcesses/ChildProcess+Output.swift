import CLibUV
import RunwayCore

/// The child's stdout and stderr: read under `OutputThrottle` (at most `ProcessOptions.outputBytesPerTurn` bytes
/// and `outputLinesPerTurn` lines per stream per loop turn), framed into lines and reported to the delegate.
///
/// A stream that spends its turn's budget stops being read (`uv_read_stop`): the pipe fills and the child's
/// writes block until a 1 ms timer (`resumeTimer`, one per child, running only while a stream is paused) frames
/// what was held and reads again, in a later turn. So a child that writes without pause costs the loop at most
/// one budget per stream per turn, and nothing it writes is lost. Pauses are reported, at most once a second per
/// stream (`throttleNoticeInterval`). Loop thread only.
extension ChildProcess {
    /// The least time between two reports of paused output for one stream, in the loop's milliseconds.
    static let throttleNoticeInterval: UInt64 = 1_000
    /// How long a paused stream waits before it is read again, in milliseconds (the libuv timer's resolution).
    static let resumeDelayMilliseconds: UInt64 = 1

    /// Starts (or resumes) reading stdout or stderr; each read is sized by the stream's budget.
    func startReadingOutput(_ pipe: UnsafeMutablePointer<uv_pipe_t>) {
        _ = uv_read_start(
            runway_pipe_as_stream(pipe),
            { handle, _, buffer in
                guard let handle, let buffer, let data = handle.pointee.data else { return }
                let child = Unmanaged<ChildProcess>.fromOpaque(data).takeUnretainedValue()
                let isError = UnsafeMutableRawPointer(handle) == UnsafeMutableRawPointer(child.stderrPipe)
                let turn = uv_now(child.loop)
                let allowed =
                    isError
                    ? child.stderrThrottle.readableBytes(in: turn) : child.stdoutThrottle.readableBytes(in: turn)
                buffer.pointee = uv_buf_init(
                    child.readBuffer.baseAddress!.assumingMemoryBound(to: CChar.self),
                    UInt32(min(child.readBuffer.count, allowed))
                )
            },
            { stream, count, _ in
                guard let stream, let data = stream.pointee.data else { return }
                let child = Unmanaged<ChildProcess>.fromOpaque(data).takeUnretainedValue()
                child.readOutput(isError: stream == runway_pipe_as_stream(child.stderrPipe), count: count)
            }
        )
    }

    /// Closes the output pipes (once the exit has been handled and the last output read or abandoned).
    func closeOutput() {
        for pipe in [self.stdoutPipe, self.stderrPipe] where uv_is_closing(runway_pipe_as_handle(pipe)) == 0 {
            uv_close(runway_pipe_as_handle(pipe), ChildProcess.handleClosed)
        }
        self.closeResumeTimerIfUnused()
    }

    // MARK: Reading

    private func readOutput(isError: Bool, count: Int) {
        let pipe = isError ? self.stderrPipe : self.stdoutPipe
        if count == Int(UV_ENOBUFS.rawValue) {
            // A read with no budget left (the budget check is before each read, so this is not expected).
            self.pause(isError: isError, pipe)
            return
        }
        if count < 0 {
            // End of file or a read error: the other end is gone. Nothing is held (reading was on).
            let frames = isError ? self.stderrThrottle.finish() : self.stdoutThrottle.finish()
            self.deliverOutput(frames, isError: isError)
            if uv_is_closing(runway_pipe_as_handle(pipe)) == 0 {
                uv_close(runway_pipe_as_handle(pipe), ChildProcess.handleClosed)
            }
            self.closeResumeTimerIfUnused()
            return
        }
        let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(self.readBuffer)[0..<count])
        let turn = uv_now(self.loop)
        let frames = isError ? self.stderrThrottle.read(bytes, in: turn) : self.stdoutThrottle.read(bytes, in: turn)
        self.deliverOutput(frames, isError: isError)
        if isError ? self.stderrThrottle.mustPause : self.stdoutThrottle.mustPause {
            self.pause(isError: isError, pipe)
        }
    }

    /// Reports each frame; a line cut at `outputLineLimitBytes` (its first bytes, then `.tooLong`: the framer
    /// keeps the prefix) is reported once, with a marker.
    private func deliverOutput(_ frames: [LineFramer.Frame], isError: Bool) {
        var index = frames.startIndex
        while index < frames.endIndex {
            defer { index += 1 }
            switch frames[index] {
            case .line(let bytes):
                let line = String(decoding: bytes, as: UTF8.self)
                if index + 1 < frames.endIndex, case .tooLong(let seen) = frames[index + 1] {
                    index += 1
                    let marker = " [runway: cut, a line of more than \(seen - 1) bytes (outputLineLimitBytes)]"
                    self.delegate?.child(self, printed: line + marker, isError: isError, truncated: true)
                } else {
                    self.delegate?.child(self, printed: line, isError: isError, truncated: false)
                }
            case .tooLong(let seen):
                let note = "(a line of more than \(seen - 1) bytes was cut)"
                self.delegate?.child(self, printed: note, isError: isError, truncated: true)
            }
        }
    }

    // MARK: Pausing and resuming

    /// Stops reading the stream until the resume timer, and reports it if a report is due.
    private func pause(isError: Bool, _ pipe: UnsafeMutablePointer<uv_pipe_t>) {
        _ = uv_read_stop(runway_pipe_as_stream(pipe))
        if isError { self.isStderrPaused = true } else { self.isStdoutPaused = true }
        if let pauses = self.throttleNotices.paused(isError: isError, at: uv_now(self.loop)) {
            self.delegate?.child(self, throttledOutput: isError, pauses: pauses)
        }
        self.armResumeTimer()
    }

    private func armResumeTimer() {
        if !self.isResumeTimerOpen {
            let status = uv_timer_init(self.loop, self.resumeTimer)
            precondition(status == 0, "uv_timer_init cannot fail on a valid loop: \(status)")
            self.resumeTimer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
            self.retainForHandle()
            self.isResumeTimerOpen = true
        }
        guard uv_is_active(runway_timer_as_handle(self.resumeTimer)) == 0 else { return }
        uv_timer_start(
            self.resumeTimer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<ChildProcess>.fromOpaque(data).takeUnretainedValue().resumeOutput()
            },
            Self.resumeDelayMilliseconds,
            0
        )
    }

    /// The resume timer: each paused stream frames what it held with this turn's budget, and is read again
    /// when that did not spend it; the timer is armed again while a stream stays paused.
    private func resumeOutput() {
        let turn = uv_now(self.loop)
        if self.isStdoutPaused {
            self.deliverOutput(self.stdoutThrottle.takeHeld(in: turn), isError: false)
            if !self.stdoutThrottle.mustPause {
                self.isStdoutPaused = false
                self.startReadingOutput(self.stdoutPipe)
            }
        }
        if self.isStderrPaused {
            self.deliverOutput(self.stderrThrottle.takeHeld(in: turn), isError: true)
            if !self.stderrThrottle.mustPause {
                self.isStderrPaused = false
                self.startReadingOutput(self.stderrPipe)
            }
        }
        if self.isStdoutPaused || self.isStderrPaused { self.armResumeTimer() }
    }

    /// Closes the resume timer once both output pipes are closing (no stream can pause again).
    private func closeResumeTimerIfUnused() {
        guard self.isResumeTimerOpen,
            uv_is_closing(runway_pipe_as_handle(self.stdoutPipe)) != 0,
            uv_is_closing(runway_pipe_as_handle(self.stderrPipe)) != 0
        else { return }
        self.isResumeTimerOpen = false
        self.isStdoutPaused = false
        self.isStderrPaused = false
        uv_close(runway_timer_as_handle(self.resumeTimer), ChildProcess.handleClosed)
    }
}

/// When to report paused output: the first pause of a stream at once, later ones at most once per
/// `ChildProcess.throttleNoticeInterval`, with the number of pauses since the last report. A pure value.
struct ThrottleNotices {
    private var lastReport: [Bool: UInt64] = [:]
    private var pauses: [Bool: Int] = [:]

    /// Counts a pause of stderr (`isError`) or stdout at loop millisecond `now`; returns the pauses to report
    /// (this one included) when a report is due, else nil.
    mutating func paused(isError: Bool, at now: UInt64) -> Int? {
        let count = self.pauses[isError, default: 0] + 1
        if let last = self.lastReport[isError], now - last < ChildProcess.throttleNoticeInterval {
            self.pauses[isError] = count
            return nil
        }
        self.lastReport[isError] = now
        self.pauses[isError] = 0
        return count
    }
}
