import CLibUV
import Foundation
import Logging
@_spi(Processes) import RunwayCore
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// The state file's owner on its own, on a bare libuv loop of the test's thread: which files it takes over, what
/// it writes and removes, and that a batch of changes arms one write.
@Suite("State file recorder")
struct StateFileRecorderTests {
    /// A libuv loop run by hand on the test's thread.
    final class BareLoop {
        let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)

        init() {
            let status = uv_loop_init(self.loop)
            precondition(status == 0, "uv_loop_init failed: \(status)")
        }

        /// One loop turn that does not wait.
        func turn() { _ = uv_run(self.loop, UV_RUN_NOWAIT) }

        /// Runs the close callbacks, then closes the loop: nonzero (UV_EBUSY) when a handle was left open.
        func close() -> Int32 {
            self.turn()
            let status = uv_loop_close(self.loop)
            if status == 0 { self.loop.deallocate() }
            return status
        }
    }

    static let logger = Logger(label: "runway.test")

    /// A live process that is not this one: the test runner's parent.
    static var liveOtherProcess: ProcessIdentity {
        ProcessIdentity.current(getppid()) ?? ProcessIdentity(pid: 1, startTime: 0)
    }

    /// This process's pid with a start time it never had: a writer that is gone.
    static var deadProcess: ProcessIdentity {
        ProcessIdentity(pid: getpid(), startTime: 1)
    }

    @Test("a state file written by another live process on this boot is left as it is, and none is kept")
    func fileOfALiveWriterIsNotTakenOver() throws {
        let directory = try TemporaryPaths.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/state.processes"
        let theirs = ProcessStateSnapshot(
            bootID: ProcFS.bootID,
            owner: Self.liveOtherProcess,
            entries: [.init(process: Self.liveOtherProcess, app: "com.test.theirs")]
        )
        #expect(ProcessStateFile(path: path).write(theirs) == 0)
        let loop = BareLoop()
        let recorder = StateFileRecorder(path: path, loop: loop.loop, logger: Self.logger)
        recorder.takeOver(trackedProcessLimit: 16, orphanReapTimeout: .milliseconds(100))
        #expect(!recorder.keepsFile)
        #expect(recorder.takeEndedAtStart().isEmpty)
        recorder.write([.init(process: recorder.ownIdentity, app: "com.test.ours")])
        #expect(try ProcessStateFile(path: path).read().get() == theirs)
        #expect(Self.liveOtherProcess.isAlive, "the listed process was not ended")
        recorder.close()
        #expect(loop.close() == 0)
    }

    @Test("a state file of another boot is taken over without ending anything, and removed when nothing is listed")
    func fileOfAnotherBootIsTakenOverAndRemoved() throws {
        let directory = try TemporaryPaths.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/state.processes"
        let old = ProcessStateSnapshot(
            bootID: "00000000-0000-0000-0000-000000000000",
            owner: Self.liveOtherProcess,
            entries: [.init(process: Self.liveOtherProcess, app: "com.test.old")]
        )
        #expect(ProcessStateFile(path: path).write(old) == 0)
        let loop = BareLoop()
        let recorder = StateFileRecorder(path: path, loop: loop.loop, logger: Self.logger)
        recorder.takeOver(trackedProcessLimit: 16, orphanReapTimeout: .milliseconds(100))
        #expect(recorder.keepsFile)
        #expect(recorder.takeEndedAtStart().isEmpty)
        #expect(Self.liveOtherProcess.isAlive)
        // Its writer is alive, but on another boot it is not the same process: an empty write removes the file
        // only when this process or a dead one wrote it, so it stays until this recorder writes over it.
        recorder.write([])
        #expect(try ProcessStateFile(path: path).read().get() == old)
        recorder.write([.init(process: recorder.ownIdentity, app: "com.test.ours")])
        let written = try #require(try ProcessStateFile(path: path).read().get())
        #expect(written.owner == recorder.ownIdentity)
        #expect(written.bootID == ProcFS.bootID)
        #expect(written.entries == [.init(process: recorder.ownIdentity, app: "com.test.ours")])
        recorder.write([])
        #expect(try ProcessStateFile(path: path).read().get() == nil)
        recorder.close()
        #expect(loop.close() == 0)
    }

    @Test("a close keeps the listed processes that are alive for the next start, and removes a file with none")
    func releaseKeepsOnlyLiveProcesses() throws {
        let directory = try TemporaryPaths.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/state.processes"
        let loop = BareLoop()
        let recorder = StateFileRecorder(path: path, loop: loop.loop, logger: Self.logger)
        recorder.takeOver(trackedProcessLimit: 16, orphanReapTimeout: .milliseconds(100))
        #expect(recorder.keepsFile)
        let alive = ProcessStateSnapshot.Entry(process: Self.liveOtherProcess, app: "com.test.alive")
        let dead = ProcessStateSnapshot.Entry(process: Self.deadProcess, app: "com.test.dead")
        recorder.release([alive, dead])
        #expect(try ProcessStateFile(path: path).read().get()?.entries == [alive])
        recorder.release([dead])
        #expect(try ProcessStateFile(path: path).read().get() == nil)
        recorder.close()
        #expect(loop.close() == 0)
    }

    @Test("changes arm one write on the next loop turn; none when closed or without a file; the timer closes")
    func changesOfATurnArmOneWrite() {
        let loop = BareLoop()
        let recorder = StateFileRecorder(path: nil, loop: loop.loop, logger: Self.logger)
        var due = 0
        recorder.onFlushDue = { due += 1 }
        recorder.changed(closed: false, now: .origin)
        loop.turn()
        #expect(due == 0, "no file kept: nothing to write")
        recorder.close()
        #expect(loop.close() == 0)

        let directory = (try? TemporaryPaths.directory()) ?? "/nonexistent"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let kept = BareLoop()
        let writer = StateFileRecorder(path: directory + "/state.processes", loop: kept.loop, logger: Self.logger)
        // The turns' clock readings, a spacing apart: every change is after a quiet period.
        var now = Instant.origin
        writer.onFlushDue = { [unowned writer] in
            due += 1
            #expect(writer.flushStarted(now: now))
        }
        // Expected: three changes in one turn, one write on the next turn; a change after it arms another;
        // a change once closed arms none.
        for _ in 0..<3 { writer.changed(closed: false, now: now) }
        kept.turn()
        #expect(due == 1)
        kept.turn()
        #expect(due == 1)
        now = now + StateFlushSchedule.spacing
        writer.changed(closed: false, now: now)
        kept.turn()
        #expect(due == 2)
        writer.changed(closed: true, now: now + StateFlushSchedule.spacing)
        kept.turn()
        #expect(due == 2)
        writer.close()
        #expect(kept.close() == 0)
    }
}
