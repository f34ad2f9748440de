@_spi(Driver) import RunwayCore
import Testing

/// P3 for one app (`runway memory-warning APP`): the exact action lists on explicit instants.
@Suite struct OperatorMemoryActionTests {
    @Test func P3_aMemoryWarningForOneAppReachesOnlyThatAppAtMostOnePending() throws {
        var core = try makeScheduler([AppDescriptor(id: mail), AppDescriptor(id: maps)])
        try core.run(.launch, for: mail, now: at(0))
        try core.run(.launch, for: maps, now: at(0))
        _ = core.beginTask("t", in: maps, now: at(0))
        try core.run(.enterBackground, for: maps, now: at(0))
        #expect(core.state(of: maps) == .background)
        let warning = try core.memoryWarningRaised(for: mail, now: at(1))
        #expect(
            warning == [
                .deliver(mail, .didReceiveMemoryWarning, token(.didReceiveMemoryWarning, to: mail, in: warning))
            ]
        )
        // At most one pending: a second warning while the first is in flight adds nothing.
        #expect(try core.memoryWarningRaised(for: mail, now: at(2)) == [])
        #expect(core.acknowledge(.didReceiveMemoryWarning, of: mail, in: warning, now: at(3)) == [])
        core.checkInvariants()
    }

    @Test func P3_aMemoryWarningForAnAppInTheBackgroundIsDelivered() throws {
        var core = try makeScheduler([AppDescriptor(id: mail)])
        try core.run(.launch, for: mail, now: at(0))
        _ = core.beginTask("t", in: mail, now: at(0))
        try core.run(.enterBackground, for: mail, now: at(0))
        let warning = try core.memoryWarningRaised(for: mail, now: at(1))
        #expect(
            warning == [
                .deliver(mail, .didReceiveMemoryWarning, token(.didReceiveMemoryWarning, to: mail, in: warning))
            ]
        )
    }

    @Test func P3_aMemoryWarningForASuspendedOrNotRunningAppIsRefusedAndChangesNothing() throws {
        var core = try makeScheduler([AppDescriptor(id: mail), AppDescriptor(id: maps)])
        try core.run(.launch, for: mail, now: at(0))
        try core.run(.enterBackground, for: mail, now: at(0))
        #expect(core.state(of: mail) == .suspended)
        for (app, state) in [(mail, AppState.suspended), (maps, AppState.notRunning)] {
            let before = core.status(now: at(1))
            #expect(throws: SchedulerError(.notRunning, app: app, state: state, file: "", line: 0)) {
                do throws(SchedulerError) {
                    _ = try core.memoryWarningRaised(for: app, now: at(1))
                } catch {
                    throw unlocated(error)
                }
            }
            #expect(core.status(now: at(1)) == before)
        }
        do throws(SchedulerError) {
            _ = try core.memoryWarningRaised(for: mail, now: at(1))
            Issue.record("a memory warning for a suspended app was accepted")
        } catch {
            #expect(
                error.description
                    == "notRunning: \(mail) is in state suspended and cannot receive notifications or memory warnings"
            )
        }
        #expect(throws: SchedulerError.self) { _ = try core.memoryWarningRaised(for: music, now: at(1)) }
        core.checkInvariants()
    }
}
