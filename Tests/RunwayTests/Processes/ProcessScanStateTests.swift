import CLibUV
import RunwayCore
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// What the scans keep between them, on a bare libuv loop of the test's thread: the periodic timer's arming, the
/// once-per-app truncation report and the unattributed set's changes.
@Suite("Process scan state")
struct ProcessScanStateTests {
    /// A libuv loop run by hand on the test's thread.
    final class BareLoop {
        let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)

        init() {
            let status = uv_loop_init(self.loop)
            precondition(status == 0, "uv_loop_init failed: \(status)")
        }

        /// Runs the loop until no handle is active: the armed timers fire (or none is armed).
        func runUntilIdle() { _ = uv_run(self.loop, UV_RUN_DEFAULT) }

        /// Runs the close callbacks, then closes the loop: nonzero (UV_EBUSY) when a handle was left open.
        func close() -> Int32 {
            _ = uv_run(self.loop, UV_RUN_NOWAIT)
            let status = uv_loop_close(self.loop)
            if status == 0 { self.loop.deallocate() }
            return status
        }
    }

    @Test("the periodic scan repeats from start until stop; a second start while running does not re-arm it")
    func periodicScanRepeatsUntilStopped() {
        let loop = BareLoop()
        let state = ProcessScanState(loop: loop.loop)
        var expiries = 0
        // Expected: three expiries 1 ms apart, the third stops the timer, so the loop runs out of active handles.
        state.onScanDue = { [unowned state] in
            expiries += 1
            if expiries == 1 { state.start(intervalMilliseconds: 1_000) }
            if expiries == 3 { state.stop() }
        }
        #expect(!state.isRunning)
        uv_update_time(loop.loop)
        let started = uv_now(loop.loop)
        state.start(intervalMilliseconds: 1)
        #expect(state.isRunning)
        loop.runUntilIdle()
        #expect(expiries == 3)
        // Re-armed at 1 s, the two later expiries would have taken 2 s.
        #expect(uv_now(loop.loop) - started < 1_000)
        #expect(!state.isRunning)
        state.stop()
        #expect(!state.isRunning)
        state.close()
        #expect(loop.close() == 0)
    }

    @Test("an app over the tracked-process limit is reported the first time only, each app once")
    func truncationIsReportedOncePerApp() {
        let loop = BareLoop()
        let state = ProcessScanState(loop: loop.loop)
        let one = AppID("com.test.scan.one")
        let two = AppID("com.test.scan.two")
        #expect(state.firstTruncation(of: one))
        #expect(!state.firstTruncation(of: one))
        #expect(state.firstTruncation(of: two))
        #expect(!state.firstTruncation(of: two))
        state.close()
        #expect(loop.close() == 0)
    }

    @Test("the unattributed set is replaced by each look, which reports a change only when it differs")
    func unattributedChangesOnlyWhenDifferent() {
        let loop = BareLoop()
        let state = ProcessScanState(loop: loop.loop)
        let first = ProcessIdentity(pid: 100, startTime: 1)
        let second = ProcessIdentity(pid: 101, startTime: 2)
        #expect(!state.replaceUnattributed(with: []))
        #expect(state.replaceUnattributed(with: [first, second]))
        #expect(!state.replaceUnattributed(with: [second, first]))
        #expect(state.unattributed == [first, second])
        #expect(state.replaceUnattributed(with: [ProcessIdentity(pid: 100, startTime: 3)]))
        #expect(state.unattributed == [ProcessIdentity(pid: 100, startTime: 3)])
        #expect(state.replaceUnattributed(with: []))
        #expect(state.unattributed.isEmpty)
        state.close()
        #expect(loop.close() == 0)
    }
}
