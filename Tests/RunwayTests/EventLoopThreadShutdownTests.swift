import RunwayCore
import Testing

@testable import Runway
@testable import RunwayControl
@testable import RunwayLoop
@testable import RunwayProcesses

@Suite("EventLoopThread.shutdown")
struct EventLoopThreadShutdownTests {
    @Test func shutdownRunsAcceptedWorkJoinsAndIsIdempotent() async throws {
        let loop = try EventLoopThread(name: "test-shutdown")
        let ran = Recorder<Int>()
        let refusedInFinalBatch = Recorder<Bool>()

        for index in 0..<10 {
            #expect(loop.execute { ran.append(index) })
        }
        #expect(
            loop.execute {
                // Runs in the final batch if shutdown has begun; either way it must run before shutdown returns.
                refusedInFinalBatch.append(!loop.execute { ran.append(-1) })
            }
        )

        // Several concurrent callers: each returns only after the join.
        await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    loop.shutdown()
                    return ran.values.count
                }
            }
            for await countAfterShutdown in group {
                #expect(countAfterShutdown >= 10)
            }
        }

        // Joined: the thread has left its body (it clears its id last) and nothing runs any more.
        #expect(loop.loopThreadID.load(ordering: .acquiring) == 0)
        #expect(refusedInFinalBatch.values.count == 1)
        let afterShutdown = ran.values
        #expect(afterShutdown.prefix(10) == ArraySlice(0..<10))

        // Documented: after shutdown, execute refuses (returns false) and drops the work.
        #expect(!loop.execute { ran.append(99) })
        loop.shutdown()
        #expect(ran.values == afterShutdown)
        #expect(!loop.inEventLoop)
    }

    @Test func shutdownOfAnIdleLoopReturns() throws {
        let loop = try EventLoopThread(name: "test-idle")
        loop.shutdown()
        loop.shutdown()
        #expect(!loop.execute {})
    }
}
