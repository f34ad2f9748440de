@_spi(Benchmarks) import RunwayCore
@_spi(Benchmarks) import RunwayTestKit
import Testing

@Suite struct DeadlineQueueTests {
    @Test func B10_equalDeadlinesPopInInsertionOrder() {
        var queue = DeadlineQueue<Int>()
        for value in 0..<100 {
            _ = queue.insert(value, at: at(5))
        }
        _ = queue.insert(-1, at: at(4))
        let due = queue.drainDue(now: at(5)).map(\.payload)
        #expect(due == [-1] + Array(0..<100))
        #expect(queue.isEmpty)
    }

    @Test func B9_nothingPopsBeforeItsDeadline() {
        var queue = DeadlineQueue<String>()
        _ = queue.insert("a", at: at(10))
        #expect(queue.popDue(now: at(10) - .nanoseconds(1)) == nil)
        #expect(queue.popDue(now: at(10))?.payload == "a")
    }

    @Test func cancelRemovesFromTheMiddleAndStaleHandlesAreIgnored() {
        var queue = DeadlineQueue<Int>()
        let handles = (0..<10).map { queue.insert($0, at: at(Int64($0))) }
        #expect(queue.cancel(handles[5]) == 5)
        #expect(queue.cancel(handles[5]) == nil)
        #expect(!queue.contains(handles[5]))
        // The slot is reused; the stale handle must not cancel the new entry.
        let reused = queue.insert(42, at: at(100))
        #expect(queue.cancel(handles[5]) == nil)
        #expect(queue.contains(reused))
        queue.checkInvariants()
        #expect(queue.drainDue(now: at(1_000)).map(\.payload) == [0, 1, 2, 3, 4, 6, 7, 8, 9, 42])
    }

    /// Random inserts and cancels against a sorted reference, seeded; the same seed twice gives the same trace.
    @Test(arguments: [1, 2, 3, 99] as [UInt64])
    func randomOperationsMatchAReference(seed: UInt64) {
        func run() -> [Int] {
            var random = SeededRandom(seed: seed)
            var queue = DeadlineQueue<Int>()
            var reference: [(deadline: Instant, sequence: Int, handle: DeadlineHandle)] = []
            var popped: [Int] = []
            var now = Instant.origin
            for step in 0..<3_000 {
                switch random.next(below: 10) {
                case 0..<5:
                    let deadline = now + .milliseconds(Int64(random.next(below: 50)))
                    let handle = queue.insert(step, at: deadline)
                    reference.append((deadline, step, handle))
                case 5..<8:
                    guard !reference.isEmpty else { continue }
                    let victim = reference.remove(at: Int(random.next(below: UInt64(reference.count))))
                    #expect(queue.cancel(victim.handle) == victim.sequence)
                default:
                    now = now + .milliseconds(Int64(random.next(below: 20)))
                    let expected = reference.filter { $0.deadline <= now }
                        .sorted { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }
                    reference.removeAll { $0.deadline <= now }
                    let due = queue.drainDue(now: now)
                    #expect(due.map(\.payload) == expected.map(\.sequence))
                    #expect(due.allSatisfy { $0.deadline <= now })
                    popped += due.map(\.payload)
                }
                #expect(queue.count == reference.count)
            }
            queue.checkInvariants()
            return popped
        }
        #expect(run() == run())
    }

    /// A deep heap (5,000 entries: six levels of four children), where sifts cross many levels and cancels hit
    /// every depth; the small random test above rarely grows past three.
    @Test func B10_aDeepQueueDrainsInDeadlineThenInsertionOrder() {
        var random = SeededRandom(seed: 7)
        var queue = DeadlineQueue<Int>()
        var reference: [(deadline: Instant, sequence: Int, handle: DeadlineHandle)] = []
        for step in 0..<5_000 {
            // Few distinct deadlines, so that ties (B10) are common.
            let deadline = Instant.origin + .milliseconds(Int64(random.next(below: 500)))
            reference.append((deadline, step, queue.insert(step, at: deadline)))
        }
        queue.checkInvariants()
        for _ in 0..<2_000 {
            let victim = reference.remove(at: Int(random.next(below: UInt64(reference.count))))
            #expect(queue.cancel(victim.handle) == victim.sequence)
        }
        queue.checkInvariants()
        let expected = reference.sorted { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }.map(\.sequence)
        var drained: [Int] = []
        for millisecond in stride(from: 0, through: 500, by: 25) {
            drained += queue.drainDue(now: .origin + .milliseconds(Int64(millisecond))).map(\.payload)
            queue.checkInvariants()
        }
        #expect(drained == expected)
        #expect(queue.isEmpty)
    }
}
