import Foundation
import RunwayTestKit
import Testing

@testable import RunwayControl

/// The run history file a daemon writes is one it reads back: the read limit follows
/// from the configuration (apps x `RunHistoryLimit` x the largest run), where a fixed 64 MiB refused the history
/// of four apps at `RunHistoryLimit` 1000 with ordinary output, and moved it aside at the next start.
@Suite("Run history file bound")
struct RunHistoryBoundTests {
    /// The largest run the history keeps: a reason and every output line cut at their limits, each made of
    /// control characters, which JSON writes six bytes each.
    static func largestRun() -> RunRecord {
        let control = String(repeating: "\u{1}", count: 4 * RunHistory.outputLineByteLimit)
        return RunRecord(
            started: "2026-11-23T12:10:41.123Z",
            ended: "2026-11-23T12:10:42.123Z",
            reason: RunHistory.cut("spawnFailed(\(control))"),
            exitStatus: Int32.min,
            signal: Int32.min,
            restarts: Int.max,
            lastOutput: Array(repeating: RunHistory.cut(control), count: RunHistory.outputLineLimit)
        )
    }

    @Test func theReadLimitAdmitsTheLargestHistoryTheConfigurationAllows() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let (apps, runs) = (3, 4)
        let history = Dictionary(
            uniqueKeysWithValues: (0..<apps).map {
                ("com.example.app\($0)", Array(repeating: Self.largestRun(), count: runs))
            }
        )
        let file = RunHistoryFile(
            path: directory.path + "/history.json",
            readByteLimit: RunHistoryFile.readByteLimit(apps: apps, runsPerApp: runs)
        )
        #expect(file.write(history) == nil)
        #expect(try file.read().get() == history)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        let perRun = size / (apps * runs)
        #expect(perRun <= RunHistoryFile.runByteBound, "\(perRun) bytes per run")

        // The most a daemon may keep, 4 apps at RunHistoryLimit 1000 (even of ordinary 1 KiB lines, about 84 MiB),
        // is under the limit it reads with.
        #expect(RunHistoryFile.readByteLimit(apps: 4, runsPerApp: 1_000) >= 4 * 1_000 * perRun)
    }
}
