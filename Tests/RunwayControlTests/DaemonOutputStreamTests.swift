import Foundation
import Testing

@testable import RunwayControl

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's own output (DaemonOutputStream, Docs/Operations.md "The daemon's log"): a reader that stops reading
/// never blocks the writer, and one that goes away never stops the process; every line not written is counted.
@Suite struct DaemonOutputStreamTests {
    /// A pipe: (read end, write end).
    static func pipe() throws -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw POSIXError(.init(rawValue: errno)!) }
        return (ends[0], ends[1])
    }

    /// Runs `body` on a thread of its own; false when it did not return within `seconds` (it blocked).
    static func returns(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        return done.wait(timeout: .now() + seconds) == .success
    }

    /// Everything readable on `descriptor` now, without waiting.
    static func drain(_ descriptor: Int32) -> String {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aReaderThatStopsReadingDoesNotBlockTheWriterAndTheDroppedLinesAreCountedInOneLine() throws {
        let (readEnd, writeEnd) = try Self.pipe()
        defer {
            close(readEnd)
            close(writeEnd)
        }
        let stream = DaemonOutputStream(descriptor: writeEnd, name: "test", limitBytes: 4096)
        let line = String(repeating: "x", count: 99) + "\n"
        // 1 MB into a pipe of 64 KiB that nobody reads, plus 4 KiB of buffer: most lines cannot go anywhere.
        let returned = Self.returns(within: 10) {
            for _ in 0..<10_000 { stream.write(line) }
        }
        #expect(returned, "write blocked on a reader that does not read")
        let dropped = stream.droppedLines
        #expect(dropped > 9_000 && dropped < 10_000, "dropped \(dropped)")
        // The reader catches up: the next line is preceded by the count of the lines it missed.
        var written = Self.drain(readEnd)
        // What waited (at most the buffer and the chunk being written) now fits in the emptied pipe.
        #expect(stream.flush(timeoutSeconds: 10))
        stream.write("last\n")
        #expect(stream.flush(timeoutSeconds: 10))
        written += Self.drain(readEnd)
        let lines = written.split(separator: "\n")
        #expect(lines.last == "last")
        #expect(lines.dropLast().last?.hasPrefix("runway: ") == true, "\(lines.suffix(2))")
        // Each run of dropped lines is one line in their place, with its count; the counts add up.
        let notices = lines.filter { $0.hasPrefix("runway: ") }
        let counted = notices.compactMap { Int($0.split(separator: " ")[1]) }.reduce(0, +)
        #expect(counted == dropped, "\(notices)")
        #expect(notices.allSatisfy { $0.contains("line(s) not written to test: the reader did not keep up") })
        #expect(lines.count == 10_000 - dropped + notices.count + 1, "every line written or counted")
    }

    @Test func aReaderThatWentAwayIsNotFatalAndEveryLaterLineIsCounted() throws {
        let (readEnd, writeEnd) = try Self.pipe()
        defer { close(writeEnd) }
        close(readEnd)
        let stream = DaemonOutputStream(descriptor: writeEnd, name: "test")
        stream.write("first\n")
        // The writer thread gets EPIPE (not SIGPIPE: this process would die of it): the stream is broken.
        #expect(!stream.flush(timeoutSeconds: 10))
        for _ in 0..<5 { stream.write("more\n") }
        #expect(stream.droppedLines == 6)
    }

    @Test func theMetricCountsBothStreams() {
        var body: [UInt8] = []
        DaemonOutputStream.renderDropped(into: &body)
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains("# TYPE runway_output_lines_dropped_total counter\n"))
        #expect(text.contains("runway_output_lines_dropped_total{stream=\"stdout\"} "))
        #expect(text.contains("runway_output_lines_dropped_total{stream=\"stderr\"} "))
    }
}
