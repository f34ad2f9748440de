import CLibUV
import CRunwayProcess
import RunwayCore
@_spi(Benchmarks) import RunwayTestKit
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

@Suite("EventLoopThread.setWakeup")
struct EventLoopThreadWakeupTests {
    struct Firing: Sendable {
        var deadline: Instant
        var now: Instant
        /// `wakeupDeadline` inside the callback: a fired wake-up must already be disarmed.
        var armedInCallback: Instant?
    }

    @Test func wakeupFiresOnceNeverEarlyAndRearmsFromItsCallback() async throws {
        let loop = try EventLoopThread(name: "test-wakeup")
        let firings = Recorder<Firing>()
        let latch = Latch(count: 3)

        // Expected: the wake-up at start+2ms fires once; its callback arms now+2ms, which fires once; that
        // callback arms now+5ms as a sentinel. A duplicate firing of either would land before the sentinel.
        let accepted = loop.execute {
            var armed = loop.turnNow + .milliseconds(2)
            var fired = 0
            loop.onWakeup = { now in
                fired += 1
                firings.append(Firing(deadline: armed, now: now, armedInCallback: loop.wakeupDeadline))
                latch.countDown()
                guard fired < 3 else { return }
                armed = now + .milliseconds(fired == 1 ? 2 : 5)
                loop.setWakeup(at: armed)
            }
            loop.setWakeup(at: armed)
        }
        #expect(accepted)
        #expect(await latch.wait(), "timed out waiting for 3 wake-ups")
        loop.shutdown()

        let values = firings.values
        #expect(values.count == 3, "fired \(values.count) times: \(values)")
        for firing in values {
            // Never early; lateness is not asserted (it depends on the machine's load).
            #expect(
                firing.now >= firing.deadline,
                "fired at \(firing.now.nanosecondsSinceOrigin) ns, before \(firing.deadline.nanosecondsSinceOrigin) ns"
            )
            #expect(firing.armedInCallback == nil)
        }
    }

    @Test func disarmingDiscardsAnExpiryThatHasNotBeenDelivered() async throws {
        let loop = try EventLoopThread(name: "test-disarm")
        let firings = Recorder<Firing>()
        let laterDeadline = Recorder<Instant>()
        let latch = Latch(count: 1)

        // Expected: only the later wake-up fires. The early one expires while the loop thread is busy
        // (its expiry is pending in the timerfd), is disarmed, and the loop then polls twice before the
        // later one is armed; a leaked expiry would fire in those polls, before the later deadline.
        let accepted = loop.execute {
            loop.onWakeup = { now in
                let deadline = laterDeadline.values.last ?? .distantFuture
                firings.append(Firing(deadline: deadline, now: now, armedInCallback: nil))
                latch.countDown()
            }
            let early = loop.now() + .microseconds(200)
            loop.setWakeup(at: early)
            while loop.now() < early + .microseconds(300) {}  // Busy on purpose: the timerfd expires meanwhile.
            loop.setWakeup(at: nil)
            _ = loop.execute {
                _ = loop.execute {
                    let later = loop.now() + .milliseconds(5)
                    laterDeadline.append(later)
                    loop.setWakeup(at: later)
                }
            }
        }
        #expect(accepted)
        #expect(await latch.wait(), "timed out waiting for the later wake-up")
        loop.shutdown()

        let values = firings.values
        #expect(values.count == 1, "fired \(values.count) times: \(values)")
        guard let firing = values.first else { return }
        #expect(firing.now >= firing.deadline, "fired at \(firing.now), before the later deadline \(firing.deadline)")
    }

    @Test func chainedRandomWakeupsAreNeverEarly() async throws {
        let loop = try EventLoopThread(name: "test-chain")
        let firings = Recorder<Firing>()
        let latch = Latch(count: 1)
        let count = 200

        // Deadlines 0-500 us after each firing, some already past when armed (offset 0); seeded.
        let accepted = loop.execute {
            var random = SeededRandom(seed: 0x5EED)
            var armed = loop.turnNow
            loop.onWakeup = { now in
                firings.append(Firing(deadline: armed, now: now, armedInCallback: nil))
                if firings.values.count == count {
                    latch.countDown()
                    return
                }
                armed = now + .nanoseconds(Int64(random.next() % 500_000))
                loop.setWakeup(at: armed)
            }
            loop.setWakeup(at: armed)
        }
        #expect(accepted)
        #expect(await latch.wait(), "timed out waiting for \(count) wake-ups")
        loop.shutdown()

        let values = firings.values
        #expect(values.count == count)
        let early = values.filter { $0.now < $0.deadline }
        #expect(early.isEmpty, "early firings: \(early)")
    }

    @Test func wakeupAtAPastDeadlineFiresTheHandlerGivenAtInit() async throws {
        let firings = Recorder<Instant>()
        let latch = Latch(count: 1)
        let loop = try EventLoopThread(name: "test-init-handler") { now in
            firings.append(now)
            latch.countDown()
        }
        // Instant.origin is the loop's creation: already past, so the wake-up fires on the next poll.
        #expect(loop.execute { loop.setWakeup(at: .origin) })
        #expect(await latch.wait(), "timed out waiting for the wake-up")
        loop.shutdown()

        #expect(firings.values.count == 1)
    }
}

@Suite("EventLoopThread wake-up spin")
struct EventLoopThreadWakeupSpinTests {
    @Test func theTimerIsArmedTheSpinEarlyAndTheWakeupIsStillNeverEarly() async throws {
        let spin = TimeSpan.microseconds(300)
        let loop = try EventLoopThread(name: "test-spin", wakeupSpin: spin)
        let remaining = Recorder<Int64>()
        let firings = Recorder<(deadline: Instant, now: Instant)>()
        let latch = Latch(count: 3)
        let accepted = loop.execute {
            // A far deadline: the timerfd must be due no later than deadline - spin (time only passes).
            let far = loop.now() + .seconds(10)
            loop.setWakeup(at: far)
            remaining.append(runway_timerfd_remaining_nanoseconds(loop.handles.timerFD))
            // Then three near ones, each armed from the previous firing.
            var armed = loop.now() + .milliseconds(2)
            var fired = 0
            loop.onWakeup = { now in
                fired += 1
                firings.append((armed, now))
                latch.countDown()
                guard fired < 3 else { return }
                armed = now + .microseconds(500)
                loop.setWakeup(at: armed)
            }
            loop.setWakeup(at: armed)
        }
        #expect(accepted)
        #expect(await latch.wait(), "timed out waiting for 3 wake-ups")
        loop.shutdown()

        let armedFor = try #require(remaining.values.first)
        #expect(armedFor <= 10_000_000_000 - 300_000, "timerfd due in \(armedFor) ns; expected at most 10 s - 300 us")
        #expect(armedFor > 5_000_000_000, "timerfd due in \(armedFor) ns")
        #expect(firings.values.count == 3)
        for firing in firings.values {
            #expect(firing.now >= firing.deadline, "fired at \(firing.now), before \(firing.deadline)")
        }
    }

    @Test(arguments: [TimeSpan.microseconds(-1), .microseconds(1_001)])
    func aSpinOutsideZeroToOneMillisecondIsRefused(spin: TimeSpan) {
        let error = #expect(throws: EventLoopError.self) {
            _ = try EventLoopThread(name: "test-bad-spin", wakeupSpin: spin)
        }
        #expect(error?.code == .invalidWakeupSpin)
        #expect(error?.description.contains("is outside 0") == true, "\(String(describing: error))")
    }
}
