import Foundation
import RunwayLocking
import RunwayTestKit
import Testing

@testable import RunwayControl

/// `PreservedStateWriter`'s spacing (Behaviour.md R1, `StateRestorationWriteInterval`): an app saving in a loop gets
/// its file written at most once per interval, the newest state winning, and another app's save is not held behind it.
@Suite struct PreservedStateWriterTests {
    /// Saves `state` and waits until the writer answers, without blocking a thread of the shared pool.
    func save(_ writer: PreservedStateWriter, _ app: String, _ state: String) async {
        await withCheckedContinuation { continuation in
            writer.save(app: app, state: Array(state.utf8), versionKey: nil) { _ in continuation.resume() }
        }
    }

    @Test func R1_anAppSavingInALoopIsWrittenOncePerIntervalAndTheNewestWins() async throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let store = PreservedStateStore(directory: directory.path + "/states", byteLimit: 1 << 20, bootID: nil)
        let writer = PreservedStateWriter(store: store, interval: .milliseconds(250), report: { _ in })
        // One app saves, waits for the answer and saves again: each write starts at least 250 ms after the one
        // before, however fast the disk, so five saves take at least a second; each is written, the last one wins.
        let start = ContinuousClock.now
        for save in 1...5 { await self.save(writer, "com.example.loop", "state \(save)") }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(1_000), "\(elapsed)")
        #expect(writer.writes == 5)
        #expect(store.load(app: "com.example.loop")?.state == Array("state 5".utf8))
        // Saves sent without waiting are one write: the newest replaces the one waiting.
        let before = writer.writes
        await withTaskGroup(of: Void.self) { group in
            for save in 6...9 { group.addTask { await self.save(writer, "com.example.loop", "state \(save)") } }
        }
        #expect(writer.writes <= before + 2)
        #expect(store.load(app: "com.example.loop")?.state.count == Array("state 9".utf8).count)
    }

    @Test func R1_anotherAppsSaveIsNotHeldBehindASpacedOne() async throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let store = PreservedStateStore(directory: directory.path + "/states", byteLimit: 1 << 20, bootID: nil)
        let writer = PreservedStateWriter(store: store, interval: .seconds(60), report: { _ in })
        await self.save(writer, "com.example.loop", "first")
        // The loop's next save waits a minute for its turn (however late this task runs again after the first); the
        // other app's is written at once.
        let held = RunwayLock(false)
        writer.save(app: "com.example.loop", state: Array("second".utf8), versionKey: nil) { _ in
            held.withLock { $0 = true }
        }
        // Read on the writer's queue when the other app's save is answered, so that how soon this task runs again
        // (the shared pool may be busy) does not matter.
        let asked = ContinuousClock.now
        let (waited, heldMeanwhile) = await withCheckedContinuation { continuation in
            writer.save(app: "com.example.other", state: Array("other".utf8), versionKey: nil) { _ in
                continuation.resume(returning: (ContinuousClock.now - asked, held.withLock { $0 }))
            }
        }
        #expect(waited < .seconds(30), "\(waited)")
        #expect(heldMeanwhile == false, "the spaced save waits for its interval")
        // A flush (the daemon's stop) writes what waits at once; its answer runs on the writer's queue first.
        writer.flush()
        #expect(held.withLock { $0 } == true)
        #expect(store.load(app: "com.example.loop")?.state == Array("second".utf8))
    }
}
