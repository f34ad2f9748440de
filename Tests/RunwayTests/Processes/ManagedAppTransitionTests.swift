@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

@Suite("P1: one app's suspension transitions set every field they touch (ProcessSupervisor.Managed)")
struct ManagedAppTransitionTests {
    static let t0 = Instant(nanosecondsSinceOrigin: 10_000_000_000)

    static func managed() -> ProcessSupervisor.Managed {
        ProcessSupervisor.Managed(
            spec: ProcessSpec(arguments: ["/bin/true"]),
            policer: ProtocolPolicer(malformedLimit: 10, lineLimit: 100, writeQueueLimitBytes: 1 << 20)
        )
    }

    @Test("P1: a drain starts at its instant and drops the last resume's confirmation")
    func P1_drainStartedDropsTheResumesConfirmation() {
        var managed = Self.managed()
        managed.signalled(suspending: false, now: Self.t0, timeout: .seconds(2))
        managed.drainStarted(now: Self.t0 + .milliseconds(3), timeout: .milliseconds(50))
        #expect(managed.drain == SuspensionDrain(since: Self.t0 + .milliseconds(3), timeout: .milliseconds(50)))
        #expect(managed.confirmation == nil)
    }

    @Test("P1: a signal starts a pending confirmation of that request at its instant")
    func P1_signalledStartsAConfirmation() {
        var managed = Self.managed()
        managed.signalled(suspending: true, now: Self.t0, timeout: .seconds(2))
        #expect(managed.confirmation == SuspensionConfirmation(suspending: true, since: Self.t0, timeout: .seconds(2)))
        #expect(managed.confirmation?.isPending == true)
    }

    @Test("P2: an exit records the exit, ends the confirmation, and says a suspended cgroup may be frozen")
    func P2_exitedAfterASuspension() {
        var managed = Self.managed()
        managed.signalled(suspending: true, now: Self.t0, timeout: .seconds(2))
        #expect(managed.exited(.signaled(9)) == true)
        #expect(managed.lastExit == .signaled(9))
        #expect(managed.confirmation == nil)
    }

    @Test("B5: a suspension still waiting for the app to read its channel ends with the run's exit")
    func B5_exitedDropsAPendingDrain() {
        var managed = Self.managed()
        managed.drainStarted(now: Self.t0, timeout: .milliseconds(50))
        _ = managed.exited(.signaled(9))
        #expect(managed.drain == nil)
    }

    @Test("B5: a new run starts with no suspension waiting for a drain")
    func B5_launchedDropsAPendingDrain() throws {
        let loop = try DirectChild.makeLoop()
        defer { DirectChild.close(loop) }
        var managed = Self.managed()
        managed.drainStarted(now: Self.t0, timeout: .milliseconds(50))
        let child = ChildProcess(app: "com.test.drain", loop: loop, options: ProcessOptions())
        managed.launched(child, policer: Self.managed().policer)
        #expect(managed.drain == nil)
    }

    @Test("P2: after a resumption, or with no request at all, an exit says the cgroup is not frozen by Runway")
    func P2_exitedAfterAResumptionOrNothing() {
        var resumed = Self.managed()
        resumed.signalled(suspending: false, now: Self.t0, timeout: .seconds(2))
        #expect(resumed.exited(.exited(0)) == false)
        var idle = Self.managed()
        #expect(idle.exited(.exited(3)) == false)
        #expect(idle.lastExit == .exited(3))
    }
}
