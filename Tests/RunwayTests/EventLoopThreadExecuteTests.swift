import RunwayCore
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

@Suite("EventLoopThread.execute")
struct EventLoopThreadExecuteTests {
    @Test func executeFromManyTasksRunsEveryClosureOnceOnTheLoopThread() async throws {
        let loop = try EventLoopThread(name: "test-execute")
        let runs = Recorder<(index: Int, onLoopThread: Bool)>()
        let latch = Latch(count: 100)

        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<100 {
                group.addTask {
                    loop.execute {
                        runs.append((index, loop.inEventLoop))
                        latch.countDown()
                    }
                }
            }
            for await accepted in group {
                #expect(accepted)
            }
        }
        #expect(await latch.wait(), "timed out waiting for 100 closures")
        #expect(!loop.inEventLoop)
        // After shutdown nothing else can run, so the log is final: a duplicate would show here.
        loop.shutdown()

        let values = runs.values
        #expect(values.map(\.index).sorted() == Array(0..<100))
        #expect(values.allSatisfy { $0.onLoopThread })
    }

    @Test func executeFromOneProducerRunsInFIFOOrder() async throws {
        let loop = try EventLoopThread(name: "test-fifo")
        let order = Recorder<Int>()
        let latch = Latch(count: 1_000)

        // One producer; the loop drains concurrently, so the items span several batches.
        for index in 0..<1_000 {
            let accepted = loop.execute {
                order.append(index)
                latch.countDown()
            }
            #expect(accepted, "item \(index) refused")
        }
        #expect(await latch.wait(), "timed out waiting for 1,000 closures")
        loop.shutdown()

        #expect(order.values == Array(0..<1_000))
    }

    @Test func executeOnTheLoopThreadRunsInALaterBatchWithAFreshTurnNow() async throws {
        let loop = try EventLoopThread(name: "test-nested")
        let events = Recorder<String>()
        let turns = Recorder<(turnNow: Instant, now: Instant)>()
        let latch = Latch(count: 1)

        // Expected order: "outer start", "outer end", "inner" (never inline).
        let accepted = loop.execute {
            events.append("outer start")
            turns.append((loop.turnNow, loop.now()))
            let nestedAccepted = loop.execute {
                events.append("inner")
                turns.append((loop.turnNow, loop.now()))
                latch.countDown()
            }
            events.append(nestedAccepted ? "outer end" : "nested execute refused")
        }
        #expect(accepted)
        #expect(await latch.wait(), "timed out waiting for the nested closure")
        loop.shutdown()

        #expect(events.values == ["outer start", "outer end", "inner"])
        let readings = turns.values
        guard readings.count == 2 else {
            Issue.record("expected 2 readings, got \(readings)")
            return
        }
        // turnNow is read at the start of each batch: at or before a fresh reading, and newer per batch.
        #expect(readings[0].turnNow <= readings[0].now)
        #expect(readings[1].turnNow <= readings[1].now)
        #expect(readings[0].turnNow < readings[1].turnNow)
    }

    @Test func executeRefusesWorkWhenTheInboxIsFull() async throws {
        let loop = try EventLoopThread(name: "test-bound", inboxCapacity: 4)
        let ran = Recorder<Int>()
        let blocked = Latch(count: 1)
        let release = Latch(count: 1)

        // Hold the loop thread inside a closure so that the inbox cannot drain while we fill it.
        #expect(
            loop.execute {
                blocked.countDown()
                while !release.isOpen {}
            }
        )
        #expect(await blocked.wait(), "timed out waiting for the loop to block")
        for index in 0..<4 {
            #expect(loop.execute { ran.append(index) }, "item \(index) refused")
        }
        #expect(!loop.execute { ran.append(99) }, "a fifth item was accepted by a full inbox of 4")
        release.countDown()
        loop.shutdown()

        #expect(ran.values == [0, 1, 2, 3])
    }
}
