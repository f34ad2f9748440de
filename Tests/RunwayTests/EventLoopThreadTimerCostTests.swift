import CLibUV
import RunwayCore
@_spi(Benchmarks) import RunwayTestKit
import Testing

@testable import RunwayLoop

#if canImport(Glibc)
import Glibc
#endif

/// What one wake-up costs the loop in system calls, and when libuv's idle-time accounting runs: counted, not timed.
@Suite("EventLoopThread wake-up cost")
struct EventLoopThreadTimerCostTests {
    /// True when `fd` is readable now (a non-blocking `poll`).
    static func isReadable(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
    }

    @Test func eachWakeupCostsOneTimerfdSettimeAndNoRead() async throws {
        let loop = try EventLoopThread(name: "test-timer-calls")
        let calls = Recorder<Int>()
        let latch = Latch(count: 1)
        let count = 20

        // Expected: one timerfd_settime to arm the first wake-up, one per firing that re-arms the next (19), and one
        // after the last firing, which re-arms nothing, to clear its expiry: count + 1 = 21 calls, and no other
        // timerfd call (its expiries are never read).
        let accepted = loop.execute {
            var fired = 0
            loop.onWakeup = { now in
                fired += 1
                guard fired == count else {
                    loop.setWakeup(at: now + .microseconds(200))
                    return
                }
                // Read in a later turn, after the loop has finished with this firing.
                _ = loop.execute {
                    calls.append(loop.timerCallsMade)
                    latch.countDown()
                }
            }
            loop.setWakeup(at: loop.now() + .microseconds(200))
        }
        #expect(accepted)
        #expect(await latch.wait(), "timed out waiting for \(count) wake-ups")
        loop.shutdown()
        #expect(calls.values == [count + 1])
    }

    @Test func aFiredWakeupThatNothingRearmsLeavesNoExpiryInTheTimerfd() async throws {
        let loop = try EventLoopThread(name: "test-expiry-left")
        let readable = Recorder<Bool>()
        let latch = Latch(count: 1)

        // Expected: the wake-up fires once; its callback arms nothing; by the next loop turn the timerfd is neither
        // readable (an expiry left in it would make every poll return at once: a busy loop) nor armed.
        let accepted = loop.execute {
            loop.onWakeup = { _ in
                _ = loop.execute {
                    readable.append(Self.isReadable(loop.handles.timerFD))
                    readable.append(runway_timerfd_remaining_nanoseconds(loop.handles.timerFD) != 0)
                    latch.countDown()
                }
            }
            loop.setWakeup(at: loop.now() + .microseconds(200))
        }
        #expect(accepted)
        #expect(await latch.wait(), "timed out waiting for the wake-up")
        loop.shutdown()
        #expect(readable.values == [false, false])
    }

    @Test func rearmingForLaterAfterAnUnreadExpiryDoesNotFireEarly() async throws {
        let loop = try EventLoopThread(name: "test-rearm-later")
        let firings = Recorder<(deadline: Instant, now: Instant)>()
        let latch = Latch(count: 1)

        // Expected: the early deadline expires while the loop thread is busy (the expiry sits in the timerfd), is
        // replaced by one 5 ms later, and only that one fires, at or after its deadline.
        let accepted = loop.execute {
            var armed = loop.now() + .microseconds(200)
            loop.onWakeup = { now in
                firings.append((armed, now))
                latch.countDown()
            }
            loop.setWakeup(at: armed)
            while loop.now() < armed + .microseconds(300) {}  // Busy on purpose: the timerfd expires meanwhile.
            armed = loop.now() + .milliseconds(5)
            loop.setWakeup(at: armed)
        }
        #expect(accepted)
        #expect(await latch.wait(), "timed out waiting for the later wake-up")
        loop.shutdown()
        #expect(firings.values.count == 1)
        for firing in firings.values {
            #expect(firing.now >= firing.deadline, "fired at \(firing.now), before \(firing.deadline)")
        }
    }

    @Test func idleTimeIsCountedFromTheFirstReadingOnTheLoopThread() async throws {
        let loop = try EventLoopThread(name: "test-idle-lazy")
        let readings = Recorder<TimeSpan>()
        let latch = Latch(count: 1)
        // The loop waits in epoll meanwhile; that wait is not counted, as nobody has asked for idle time yet.
        usleep(20_000)

        // Expected: the first reading starts the accounting and is zero; a wake-up 5 ms later reads more than zero
        // (the loop waited in epoll for it).
        let accepted = loop.execute {
            readings.append(loop.idleTime() ?? .max)
            loop.onWakeup = { _ in
                readings.append(loop.idleTime() ?? .max)
                latch.countDown()
            }
            loop.setWakeup(at: loop.now() + .milliseconds(5))
        }
        #expect(accepted)
        #expect(await latch.wait(), "timed out waiting for the wake-up")
        loop.shutdown()
        let values = readings.values
        #expect(values.count == 2)
        #expect(values.first == .zero, "first reading \(values)")
        #expect((values.last ?? .zero) > .zero, "second reading \(values)")
    }
}
