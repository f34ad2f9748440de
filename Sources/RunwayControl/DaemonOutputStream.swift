import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's own output on one of its standard streams (the timeline and notes on standard output, its log on
/// standard error), written by a thread of its own through a bounded buffer: a reader that stops reading (a pipe
/// into a stalled program, a terminal paused with Ctrl-S) never blocks the loop or a caller, and a reader that
/// goes away (`EPIPE`) never stops the daemon. swift-log's text handler and the JSON handler both write here, so
/// every stream behaves the same.
///
/// A line that does not fit in the buffer (`bufferBytesMax`, 1 MiB waiting per stream) is dropped and counted; the
/// count is written as one line in its place before the next line that fits, and `droppedLines` is exported as
/// `runway_output_lines_dropped_total{stream}`. Once the stream is broken (`EPIPE`, `EBADF`) nothing more is
/// written and every line is counted. Nothing is dropped without being counted.
///
/// Threading: `write` from any thread; it takes a lock, never waits for the reader. Lines keep their order.
/// One writer thread per stream, started by the first line.
package final class DaemonOutputStream: TextOutputStream, @unchecked Sendable {
    // @unchecked Sendable: every mutable property below is read and written only with `condition` locked.

    package static let standardOutput = DaemonOutputStream(descriptor: STDOUT_FILENO, name: "stdout")
    package static let standardError = DaemonOutputStream(descriptor: STDERR_FILENO, name: "stderr")
    /// Bytes that may wait for the reader, per stream (besides the chunk being written).
    package static let bufferBytesMax = 1 << 20

    /// `stdout` or `stderr`: the metric's label and the dropped-lines line's subject.
    package let name: String
    private let descriptor: Int32
    private let limitBytes: Int
    private let condition = NSCondition()
    private var pending: [UInt8] = []
    private var writing = false
    private var started = false
    private var broken = false
    /// Lines dropped since the last line that was queued: written as one line before the next.
    private var droppedSinceQueued = 0
    private var droppedTotal = 0

    /// - Parameters:
    ///   - descriptor: Written with `write(2)`; not closed.
    ///   - limitBytes: Bytes that may wait for the reader (`bufferBytesMax`).
    package init(descriptor: Int32, name: String, limitBytes: Int = DaemonOutputStream.bufferBytesMax) {
        precondition(limitBytes > 0, "limitBytes=\(limitBytes)")
        self.descriptor = descriptor
        self.name = name
        self.limitBytes = limitBytes
    }

    /// Lines dropped so far: did not fit in the buffer, or came after the stream broke.
    package var droppedLines: Int {
        self.condition.lock()
        defer { self.condition.unlock() }
        return self.droppedTotal
    }

    /// Queues `text` (one line with its newline, as the callers give it) or counts it dropped. Never blocks on the
    /// reader.
    package func write(_ text: String) {
        let bytes = Array(text.utf8)
        self.condition.lock()
        defer { self.condition.unlock() }
        guard !self.broken else {
            self.droppedTotal += 1
            return
        }
        let notice = self.droppedSinceQueued == 0 ? [] : Array(self.droppedNotice(self.droppedSinceQueued).utf8)
        guard self.pending.count + notice.count + bytes.count <= self.limitBytes else {
            self.droppedSinceQueued += 1
            self.droppedTotal += 1
            return
        }
        self.droppedSinceQueued = 0
        self.pending += notice
        self.pending += bytes
        if !self.started {
            self.started = true
            let thread = Thread { [self] in self.runWriter() }
            thread.name = "runway-output"
            thread.start()
        }
        self.condition.signal()
    }

    /// Waits until every queued line is written, the stream broke, or `timeoutSeconds` passed (a reader that
    /// never reads must not keep the daemon from exiting).
    ///
    /// - Returns: Whether everything queued was written.
    @discardableResult
    package func flush(timeoutSeconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        self.condition.lock()
        defer { self.condition.unlock() }
        while (!self.pending.isEmpty || self.writing) && !self.broken {
            guard self.condition.wait(until: deadline) else { break }
        }
        return self.pending.isEmpty && !self.writing && !self.broken
    }

    private func droppedNotice(_ count: Int) -> String {
        "runway: \(count) line(s) not written to \(self.name): the reader did not keep up with "
            + "\(self.limitBytes) bytes buffered (runway_output_lines_dropped_total)\n"
    }

    /// The writer thread: takes everything queued and writes it, blocking here, not in `write`.
    private func runWriter() {
        // A closed reader is an EPIPE error here, whatever the process does with SIGPIPE.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        while true {
            self.condition.lock()
            while self.pending.isEmpty { self.condition.wait() }
            let chunk = self.pending
            self.pending = []
            self.writing = true
            self.condition.unlock()
            let failure = Self.writeAll(chunk, to: self.descriptor)
            self.condition.lock()
            self.writing = false
            if let failure {
                // What was not written is counted, one per line.
                self.droppedTotal += chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                if failure == EPIPE || failure == EBADF {
                    self.broken = true
                    self.droppedTotal += self.pending.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                    self.pending = []
                }
            }
            self.condition.broadcast()
            let stop = self.broken
            self.condition.unlock()
            if stop { return }
        }
    }

    /// Writes all of `bytes`, retrying interrupted and partial writes and waiting on a non-blocking descriptor.
    ///
    /// - Returns: nil, or the `errno` that stopped it.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written >= 0 {
                    offset += written
                    continue
                }
                let error = errno
                if error == EINTR { continue }
                if error == EAGAIN || error == EWOULDBLOCK {
                    var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&entry, 1, -1)
                    continue
                }
                return error
            }
            return nil
        }
    }
}

extension DaemonOutputStream {
    /// How long the daemon waits at exit for each stream's queue to be written: a reader that stopped reading
    /// must not keep it from exiting.
    static let exitFlushSeconds = 2.0

    /// Writes both streams' queues before the daemon exits, waiting at most `exitFlushSeconds` for each.
    static func flushAll() {
        Self.standardOutput.flush(timeoutSeconds: Self.exitFlushSeconds)
        Self.standardError.flush(timeoutSeconds: Self.exitFlushSeconds)
    }

    /// `runway_output_lines_dropped_total{stream}` for both streams, in Prometheus' text format.
    static func renderDropped(into body: inout [UInt8]) {
        let name = "runway_output_lines_dropped_total"
        var text = "# HELP \(name) Lines of the daemon's own output (timeline, log) not written: the reader did not "
        text += "keep up with the buffer or went away.\n# TYPE \(name) counter\n"
        for stream in [Self.standardOutput, Self.standardError] {
            text += "\(name){stream=\"\(stream.name)\"} \(stream.droppedLines)\n"
        }
        body.append(contentsOf: text.utf8)
    }
}
