@_spi(Driver) import RunwayCore
import Testing

/// What an app or a client cannot get out of wake-ups (W2, W5, W7): a self-scheduled refresh does not lengthen the
/// app's own background period, and wake-ups waiting for an app in the foreground count toward the limit. Wake
/// budget 10 s, warning lead 2 s, background budget 30 s.
@Suite struct WakeBoundsTests {
    let settings = SchedulerSettings(expirationWarningLead: .seconds(2), backgroundWakeBudget: .seconds(10))

    @Test func W7_aRefreshDueInTheBackgroundDoesNotMoveTheDeadline() throws {
        // No minimum interval between refreshes (RefreshMinimumInterval 0), so that every request below is served.
        var settings = self.settings
        settings.refreshMinimumInterval = .zero
        var core = try makeScheduler([AppDescriptor(id: mail)], settings: settings)
        try core.run(.launch, for: mail, now: at(0))
        _ = core.beginTask("forever", in: mail, now: at(0))
        try core.run(.enterBackground, for: mail, now: at(0))
        #expect(core.status(of: mail, now: at(0))?.deadline == at(30))
        // The app asks for a refresh at once, every second: each is delivered and held, none moves the deadline
        // (a refresh it asked for itself would otherwise keep it in the background for ever, its task too).
        for second in Int64(21)...29 {
            _ = try core.refreshRequested(by: mail, earliestBegin: at(second), now: at(second))
            let due = core.clockAdvanced(to: at(second))
            core.acknowledgeAll(due, now: at(second))
            #expect(core.status(of: mail, now: at(second))?.deadline == at(30))
        }
        #expect(core.status(of: mail, now: at(29))?.outstandingWakes == 9)
        // B6 at the period's own deadline: the task overran, OverrunPolicy terminate.
        core.acknowledgeAll(core.clockAdvanced(to: at(30)), now: at(30))
        #expect(core.state(of: mail) == .notRunning)
        #expect(core.status(of: mail, now: at(30))?.lastTermination == .budgetOverrun)
        core.checkInvariants()
    }

    @Test func W5_wakeUpsWaitingForAForegroundAppCountTowardTheLimit() throws {
        let limited = SchedulerSettings(backgroundWakeLimitPerApp: 2)
        var core = try makeScheduler([AppDescriptor(id: mail)], settings: limited)
        // The app is launched and does not return from didFinishLaunching: what follows waits in its queue.
        let launch = try core.commandReceived(.launch, for: mail, now: at(0))
        let first = try core.backgroundWakeRequested(.remoteNotification, payload: "1", for: mail, now: at(1))
        _ = try core.backgroundWakeRequested(.remoteNotification, payload: "2", for: mail, now: at(1))
        do throws(SchedulerError) {
            _ = try core.backgroundWakeRequested(.remoteNotification, payload: "3", for: mail, now: at(1))
            Issue.record("a third wake-up waiting for the app was accepted")
        } catch {
            #expect(error.code == .tooManyWakes && error.limit == 2)
        }
        // Once the app has handled its messages, nothing waits: wake-ups are taken again.
        core.acknowledgeAll(launch, now: at(2))
        #expect(core.state(of: mail) == .active)
        #expect(try core.backgroundWakeCompleted(first.token, by: mail, now: at(2)) == [])
        _ = try core.backgroundWakeRequested(.remoteNotification, payload: "4", for: mail, now: at(2))
        core.checkInvariants()
    }

    @Test func W7_aRefreshRefusedToATerminatingAppSaysWhatWasRefused() throws {
        var core = try makeScheduler([protocolApp], settings: self.settings)
        try core.run(.launch, for: mail, now: at(0))
        _ = try core.commandReceived(.terminate, for: mail, now: at(0))
        do throws(SchedulerError) {
            _ = try core.refreshRequested(by: mail, earliestBegin: at(1), now: at(0))
            Issue.record("a terminating app's refresh request was accepted")
        } catch {
            #expect(
                error.description == "notRunning: \(mail) is in state active (terminating) and cannot ask for a "
                    + "scheduled refresh (W7)"
            )
        }
    }
}
