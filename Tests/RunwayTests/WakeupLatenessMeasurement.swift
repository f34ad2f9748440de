import Foundation
import RunwayCore
@_spi(Benchmarks) import RunwayTestKit
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

/// Not a test: measures how late `setWakeup` delivers. Run with
/// `RUNWAY_MEASURE=1 swift test --filter WakeupLatenessMeasurement`.
/// 10,000 seeded random deadlines spread over 2 s; the callback handles every due deadline with its single
/// clock reading and arms the earliest pending one, as the scheduler will. Lateness = reading - deadline.
@Suite("Wake-up lateness measurement")
struct WakeupLatenessMeasurement {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["RUNWAY_MEASURE"] != nil))
    func wakeupLateness() async throws {
        let count = 10_000
        let loop = try EventLoopThread(name: "measure")
        let result = Recorder<[Int64]>()
        let latch = Latch(count: 1)

        let accepted = loop.execute {
            var random = SeededRandom(seed: 2_026)
            let start = loop.now() + .milliseconds(20)
            let deadlines = (0..<count).map { _ in
                start + .nanoseconds(Int64(random.next() % 2_000_000_000))
            }.sorted()
            var next = 0
            var lateness: [Int64] = []
            lateness.reserveCapacity(count)
            loop.onWakeup = { now in
                while next < count, deadlines[next] <= now {
                    lateness.append((now - deadlines[next]).nanoseconds)
                    next += 1
                }
                if next < count {
                    loop.setWakeup(at: deadlines[next])
                } else {
                    result.append(lateness)
                    latch.countDown()
                }
            }
            loop.setWakeup(at: deadlines[0])
        }
        #expect(accepted)
        #expect(await latch.wait(timeout: .seconds(30)), "timed out")
        loop.shutdown()

        guard let lateness = result.values.first?.sorted(), lateness.count == count else {
            Issue.record("no result")
            return
        }
        #expect(lateness.allSatisfy { $0 >= 0 }, "a deadline was delivered early")
        func microseconds(_ quantile: Double) -> String {
            let index = min(lateness.count - 1, Int((Double(lateness.count) * quantile).rounded(.down)))
            return String(format: "%.1f", Double(lateness[index]) / 1_000)
        }
        print(
            "wake-up lateness over \(count) deadlines in 2 s: p50=\(microseconds(0.5)) us "
                + "p99=\(microseconds(0.99)) us max=\(String(format: "%.1f", Double(lateness.last!) / 1_000)) us"
        )
    }
}
