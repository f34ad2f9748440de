import Dispatch
import RunwayLocking
import Testing

/// `RunwayLock` is mutual exclusion around one value, in both variants (`Mutex`, and the pthread mutex of the
/// sanitizer builds): these run under `make test` against the first and `make sanitize-thread` against the second.
@Suite struct RunwayLockTests {
    @Test func withLockExcludesOtherThreadsSoNoIncrementIsLost() {
        let counter = RunwayLock(0)
        let threads = 8
        let incrementsPerThread = 10_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<incrementsPerThread {
                counter.withLock { value in
                    // A read and a write apart: without exclusion another thread's increment lands between them.
                    let read = value
                    value = read + 1
                }
            }
        }
        #expect(counter.withLock { $0 } == threads * incrementsPerThread)
    }

    @Test func withLockReturnsTheBodysResultAndRethrowsItsTypedError() {
        struct Refused: Error, Equatable {}
        let lock = RunwayLock([1, 2])
        #expect(lock.withLock { $0.count } == 2)
        #expect(throws: Refused()) {
            try lock.withLock { (values: inout [Int]) throws(Refused) -> Void in
                values.append(3)
                throw Refused()
            }
        }
        // A body that throws keeps what it changed before throwing, and the lock is free again.
        #expect(lock.withLock { $0 } == [1, 2, 3])
    }
}
