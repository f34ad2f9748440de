import Foundation
import RunwayLocking
import RunwayTestKit
import Testing

@testable import RunwayControl

/// `PreservedStateWriter`'s spacing (Behaviour.md R1, `StateRestorationWriteInterval`): an app saving in a loop gets
/// its file written once per interval, the newest state winning, and another app's save is not held behind it.
@Suite struct PreservedStateWriterTests {
    /// Saves `state` and waits until the writer answers.
    func save(_ writer: PreservedStateWriter, _ app: String, _ state: String) {
        let done = DispatchSemaphore(value: 0)
        writer.save(app: app, state: Array(state.utf8), versionKey: nil) { _ in done.signal() }
        done.wait()
    }

    @Test func R1_anAppSavingInALoopIsWrittenOncePerIntervalAndTheNewestWins() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let store = PreservedStateStore(directory: directory.path + "/states", byteLimit: 1 << 20, bootID: nil)
        let writer = PreservedStateWriter(store: store, interval: .milliseconds(250), report: { _ in })
        // One app saves, waits for the answer and saves again, for a second: about four intervals.
        let start = ContinuousClock.now
        var saves = 0
        while ContinuousClock.now - start < .seconds(1) {
            saves += 1
            self.save(writer, "com.example.loop", "state \(saves)")
        }
        let writes = writer.writes
        #expect(writes >= 2 && writes <= 6, "\(writes) writes of \(saves) saves in one second, 250 ms apart")
        #expect(store.load(app: "com.example.loop")?.state == Array("state \(saves)".utf8))
    }

    @Test func R1_anotherAppsSaveIsNotHeldBehindASpacedOne() throws {
        let directory = try TemporaryConfig()
        defer { directory.remove() }
        let store = PreservedStateStore(directory: directory.path + "/states", byteLimit: 1 << 20, bootID: nil)
        let writer = PreservedStateWriter(store: store, interval: .seconds(5), report: { _ in })
        self.save(writer, "com.example.loop", "first")
        // The loop's next save waits five seconds for its turn; the other app's is written at once.
        let held = DispatchSemaphore(value: 0)
        writer.save(app: "com.example.loop", state: Array("second".utf8), versionKey: nil) { _ in held.signal() }
        let elapsed = ContinuousClock().measure { self.save(writer, "com.example.other", "other") }
        #expect(elapsed < .seconds(2), "\(elapsed)")
        #expect(held.wait(timeout: .now()) == .timedOut, "the spaced save waits for its interval")
        // A flush (the daemon's stop) writes what waits at once.
        writer.flush()
        #expect(held.wait(timeout: .now() + 1) == .success)
        #expect(store.load(app: "com.example.loop")?.state == Array("second".utf8))
    }
}
