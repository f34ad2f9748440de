@_spi(Driver) @_spi(Processes) import RunwayCore
import RunwayTestKit
import Testing

@testable import Runway
@testable import RunwayLoop
@testable import RunwayProcesses

@Suite("P2: leftovers are waited for in order, dropped when gone, forgotten after orphanReapTimeout")
struct LeftoverProcessesTests {
    static let t0 = Instant(nanosecondsSinceOrigin: 3_000_000_000)

    static func orphan(_ pid: Int32, since: Instant) -> ProcessSupervisor.Orphan {
        ProcessSupervisor.Orphan(pid: pid, app: "com.example.app", since: since)
    }

    @Test("P2: each sweep drops what is gone, keeps the rest in order, and gives up on each after its own timeout")
    func P2_sweepDropsGoneAndOverdueLeftovers() {
        var clock = ManualClock(now: Self.t0)
        var leftovers = LeftoverProcesses()
        leftovers.left(Self.orphan(10, since: clock.now))
        leftovers.left(Self.orphan(11, since: clock.now))
        clock.advance(by: .seconds(2))
        leftovers.left(Self.orphan(12, since: clock.now))
        #expect(leftovers.pids == [10, 11, 12])

        // t0 + 2 s: 11 is reaped; 10 and 12 wait.
        var looked: [Int32] = []
        var result = leftovers.sweep(now: clock.now, timeout: .seconds(5)) { orphan in
            looked.append(orphan.pid)
            return orphan.pid == 11
        }
        #expect(looked == [10, 11, 12])
        #expect(result.removed == 1 && result.givenUp.isEmpty)
        #expect(leftovers.pids == [10, 12])

        // t0 + 5 s: exactly 10's timeout: still waited for.
        clock.advance(to: Self.t0 + .seconds(5))
        result = leftovers.sweep(now: clock.now, timeout: .seconds(5)) { _ in false }
        #expect(result.removed == 0)
        #expect(leftovers.count == 2)

        // A nanosecond later 10 is given up; 12, left 2 s later, still waits.
        clock.advance(by: .nanoseconds(1))
        result = leftovers.sweep(now: clock.now, timeout: .seconds(5)) { _ in false }
        #expect(result.removed == 1)
        #expect(result.givenUp.map(\.pid) == [10])
        #expect(leftovers.pids == [12])

        // t0 + 7 s + 1 ns: 12 is given up too; nothing is left.
        clock.advance(to: Self.t0 + .seconds(7) + .nanoseconds(1))
        result = leftovers.sweep(now: clock.now, timeout: .seconds(5)) { _ in false }
        #expect(result.givenUp.map(\.pid) == [12])
        #expect(leftovers.isEmpty)
    }

    @Test("P2: a leftover seen gone after its timeout is dropped as gone, not given up")
    func P2_goneAfterTheTimeoutIsNotGivenUp() {
        var leftovers = LeftoverProcesses()
        leftovers.left(Self.orphan(20, since: Self.t0))
        let result = leftovers.sweep(now: Self.t0 + .seconds(60), timeout: .seconds(5)) { _ in true }
        #expect(result.removed == 1)
        #expect(result.givenUp.isEmpty)
        #expect(leftovers.isEmpty)
    }
}
