import Foundation
import RunwayLocking
import RunwayTestKit
import Testing

@testable import RunwayControl

/// The run history is saved off the loop thread, the newest snapshot only: however fast apps exit, at most one
/// snapshot waits behind the write in progress, and the daemon's stop waits for at most two writes.
@Suite("Run history writer")
struct RunHistoryWriterTests {
    /// A write that waits until `release` is signalled before writing the real file: holds the first write in
    /// progress while the test submits more.
    final class Gate: Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        private let gated = RunwayLock(true)

        func pass() {
            let wait = self.gated.withLock { gated in
                defer { gated = false }
                return gated
            }
            guard wait else { return }
            self.entered.signal()
            self.release.wait()
        }
    }

    static func snapshot(_ number: Int, apps: Int = 20) -> RunHistoryWriter.Snapshot {
        Dictionary(
            uniqueKeysWithValues: (0..<apps).map { app in
                let run = RunRecord(
                    started: "2026-11-23T12:10:41.123Z",
                    ended: "2026-11-23T12:10:42.123Z",
                    reason: "exited(\(number))",
                    exitStatus: Int32(number % 256),
                    restarts: number,
                    lastOutput: ["line \(number) of com.example.app\(app)"]
                )
                return ("com.example.app\(app)", [run])
            }
        )
    }

    @Test func rapidExitsWriteTheNewestSnapshotAtMostTwice() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let file = RunHistoryFile(path: directory.path + "/history.json")
        let gate = Gate()
        let writer = RunHistoryWriter(write: { snapshot in
            gate.pass()
            return file.write(snapshot)
        })
        writer.submit(Self.snapshot(0))
        gate.entered.wait()
        // 500 exits while the first write is in progress: each replaces the one waiting.
        for number in 1...500 { writer.submit(Self.snapshot(number)) }
        gate.release.signal()
        writer.flush()

        let counts = writer.counts
        #expect(counts.writes == 2, "\(counts)")
        #expect(counts.merged == 499, "\(counts)")
        #expect(try file.read().get() == Self.snapshot(500))
    }

    @Test func aStopWithAWritePendingWaitsForTwoWritesAndLeavesTheNewestFile() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let file = RunHistoryFile(path: directory.path + "/history.json")
        let gate = Gate()
        let writer = RunHistoryWriter(write: { snapshot in
            gate.pass()
            return file.write(snapshot)
        })
        writer.submit(Self.snapshot(1))
        gate.entered.wait()
        writer.submit(Self.snapshot(2))
        writer.submit(Self.snapshot(3))
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { gate.release.signal() }
        writer.flush()

        #expect(writer.counts.writes == 2, "\(writer.counts)")
        #expect(try file.read().get() == Self.snapshot(3))
    }

    @Test func writesDuringACrashLoopStartAtLeastTheIntervalApart() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let file = RunHistoryFile(path: directory.path + "/history.json")
        let writer = RunHistoryWriter(write: { file.write($0) }, minimumInterval: .milliseconds(300))
        // 100 exits over about a second: without spacing each would be written (or queued); with it, a write
        // starts at once and then at most every 300 ms (fewer when the machine is slow, never more).
        for number in 1...100 {
            writer.submit(Self.snapshot(number))
            usleep(10_000)
        }
        let writes = writer.counts.writes
        #expect(writes >= 1 && writes <= 5, "\(writes) writes")
        writer.flush()
        #expect(try file.read().get() == Self.snapshot(100))
    }

    @Test func onlyEndedRunsAreSaved() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let file = RunHistoryFile(path: directory.path + "/history.json")
        let writer = RunHistoryWriter(write: { file.write($0) })
        var snapshot = Self.snapshot(7, apps: 2)
        let running = RunRecord(started: "2026-11-23T12:10:43.123Z", restarts: 8, lastOutput: [])
        snapshot["com.example.app0"]?.append(running)
        snapshot["com.example.running"] = [running]
        writer.submit(snapshot)
        writer.flush()
        #expect(try file.read().get() == Self.snapshot(7, apps: 2))
    }

    @Test func aWriteProblemIsReportedOnceUntilItChanges() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        // The read limit bounds what is written: a history larger than a daemon reads back is refused, named.
        let file = RunHistoryFile(path: directory.path + "/history.json", readByteLimit: 1_000)
        let reports = RunwayLock<[String]>([])
        let writer = RunHistoryWriter(
            write: { file.write($0) },
            report: { line in reports.withLock { $0.append(line) } }
        )
        for number in 1...3 {
            writer.submit(Self.snapshot(number))
            writer.flush()
        }
        let reported = reports.withLock { $0 }
        #expect(reported.count == 1, "\(reported)")
        #expect(reported.first?.contains("RunHistoryLimit") == true, "\(reported)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}
