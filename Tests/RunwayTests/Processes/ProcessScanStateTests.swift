import CLibUV
import RunwayCore
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// What the scans keep between them, on a bare libuv loop of the test's thread: the settling looks' timer, the
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

    @Test("the settling looks: one armed per activity, re-armed by each look until the series ends, then none")
    func settlingLooksEndAfterTheSeries() {
        let loop = BareLoop()
        let state = ProcessScanState(loop: loop.loop)
        var looks = 0
        // Expected: an activity arms one look; each look re-arms the next (1, 2, 4 and 8 ms after); a second
        // activity before the first look arms nothing more and restarts the series at the first look, so 4 + 1
        // looks, then the loop runs out of active handles.
        state.onScanDue = { [unowned state] in
            looks += 1
            state.lookMade()
        }
        #expect(!state.isRunning)
        state.activity(intervalMilliseconds: 1)
        state.activity(intervalMilliseconds: 1)
        #expect(state.isRunning)
        loop.runUntilIdle()
        #expect(looks == SettlingLooks.lookCount + 1)
        #expect(!state.isRunning)
        state.activity(intervalMilliseconds: 1)
        state.stop()
        #expect(!state.isRunning)
        loop.runUntilIdle()
        #expect(looks == SettlingLooks.lookCount + 1, "a stopped series makes no look")
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
