import NIOCore
import NIOPosix
import RunwayLocking
import Testing

@testable import RunwayControl

/// `DaemonProbes` on its own: the no-op it posts to the scheduler's loop is held here, so the test decides when
/// the "loop" runs it.
@Suite struct DaemonProbesTests {
    /// Work posted to the stand-in loop, run when the test says.
    final class HeldLoop: Sendable {
        let work = RunwayLock<[@Sendable () -> Void]>([])
        let posted = RunwayLock(0)
        let accepting: Bool

        init(accepting: Bool = true) { self.accepting = accepting }

        func post(_ work: @escaping @Sendable () -> Void) -> Bool {
            guard self.accepting else { return false }
            self.posted.withLock { $0 += 1 }
            self.work.withLock { $0.append(work) }
            return true
        }

        func runAll() {
            let batch = self.work.withLock { work in
                defer { work = [] }
                return work
            }
            for work in batch { work() }
        }
    }

    @Test func probesWhileTheLoopsNoOpWaitsShareItUpToTheWaiterLimit() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = HeldLoop()
        let probes = DaemonProbes(waiterLimit: 2) { loop.post($0) }
        let eventLoop = group.next()

        // Two probes wait for one no-op; the third is over the limit and is answered at once.
        guard case .pending(let first) = probes.loopAnswered(on: eventLoop),
            case .pending(let second) = probes.loopAnswered(on: eventLoop)
        else {
            Issue.record("the first two probes wait for the loop")
            return
        }
        guard case .notAnswering = probes.loopAnswered(on: eventLoop) else {
            Issue.record("a third probe waiting for the same no-op is over waiterLimit 2")
            return
        }
        #expect(loop.posted.withLock { $0 } == 1)

        // The loop turns: both answered, and the next probe posts a new no-op.
        loop.runAll()
        #expect(try first.wait() == true)
        #expect(try second.wait() == true)
        guard case .pending(let third) = probes.loopAnswered(on: eventLoop) else {
            Issue.record("a probe after the loop answered waits for a new no-op")
            return
        }
        #expect(loop.posted.withLock { $0 } == 2)
        loop.runAll()
        #expect(try third.wait() == true)
    }

    @Test func aLoopThatRefusesTheNoOpIsAnsweredAsStoppedAtOnce() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let probes = DaemonProbes(waiterLimit: 2) { HeldLoop(accepting: false).post($0) }
        for _ in 0..<3 {
            guard case .pending(let answer) = probes.loopAnswered(on: group.next()) else {
                Issue.record("a refused no-op is not left waiting")
                return
            }
            #expect(try answer.wait() == false)
        }
    }

    @Test func theDaemonIsStartingUntilItSaysOtherwise() {
        let probes = DaemonProbes(waiterLimit: 1) { _ in true }
        #expect(probes.phase == .starting)
        probes.setPhase(.ready)
        #expect(probes.phase == .ready)
        probes.setPhase(.stopping)
        #expect(probes.phase == .stopping)
    }
}
