@_spi(Driver) import RunwayCore
import Testing

/// Scheduled refresh requests (W7-W9): the exact action lists on explicit instants. Wake budget 10 s, warning lead
/// 2 s.
@Suite struct RefreshActionTests {
    let settings = SchedulerSettings(expirationWarningLead: .seconds(2), backgroundWakeBudget: .seconds(10))

    func refresh(_ token: UInt64) -> Message {
        .backgroundWake(reason: .refresh, payload: "", token: WakeToken(rawValue: token))
    }

    @Test func W7_aRefreshWakesTheSuspendedAppAtItsInstantNeverEarly() throws {
        var core = try makeScheduler([AppDescriptor(id: mail)], settings: self.settings)
        try core.run(.launch, for: mail, now: at(0))
        #expect(try core.refreshRequested(by: mail, earliestBegin: at(10), now: at(1)) == [.armWakeup(at(10))])
        #expect(core.status(of: mail, now: at(1))?.nextRefresh == at(10))
        #expect(core.nextRefresh(of: mail) == at(10))
        try core.run(.enterBackground, for: mail, now: at(2))
        #expect(core.state(of: mail) == .suspended)
        #expect(core.clockAdvanced(to: at(10) - .nanoseconds(1)) == [])
        #expect(core.state(of: mail) == .suspended)
        let due = core.clockAdvanced(to: at(10))
        let message = self.refresh(1)
        #expect(
            due == [
                .resume(mail),
                published(mail, .suspended, .background, .backgroundWake(.refresh), at: at(10), [message]),
                .deliver(mail, message, token(message, to: mail, in: due)),
                .armWakeup(at(18)),
            ]
        )
        #expect(core.nextRefresh(of: mail) == nil)
        _ = core.acknowledge(message, of: mail, in: due, now: at(11))
        #expect(try core.backgroundWakeCompleted(WakeToken(rawValue: 1), by: mail, now: at(12)).first == .suspend(mail))
        core.checkInvariants()
    }

    @Test func W7_aRefreshIsDueNoEarlierThanRefreshMinimumIntervalAfterThePreviousOne() throws {
        var settings = self.settings
        settings.refreshMinimumInterval = .seconds(60)
        var core = try makeScheduler([AppDescriptor(id: mail)], settings: settings)
        try core.run(.launch, for: mail, now: at(0))
        // The first refresh has no previous one: due at the instant asked for.
        #expect(try core.refreshRequested(by: mail, earliestBegin: at(5), now: at(0)) == [.armWakeup(at(5))])
        try core.run(.enterBackground, for: mail, now: at(1))
        let first = core.clockAdvanced(to: at(5))
        #expect(first.first == .resume(mail))
        core.acknowledgeAll(first, now: at(5))
        // Asked again at once ("0 s from now"): due 60 s after the previous refresh woke it, not before.
        #expect(try core.refreshRequested(by: mail, earliestBegin: at(6), now: at(6)).isEmpty)
        #expect(core.nextRefresh(of: mail) == at(65))
        #expect(try core.backgroundWakeCompleted(WakeToken(rawValue: 1), by: mail, now: at(7)).first == .suspend(mail))
        #expect(core.clockAdvanced(to: at(65) - .nanoseconds(1)) == [])
        #expect(core.state(of: mail) == .suspended)
        #expect(core.clockAdvanced(to: at(65)).first == .resume(mail))
        // An instant later than the interval is kept as asked.
        #expect(try core.refreshRequested(by: mail, earliestBegin: at(200), now: at(66)).isEmpty)
        #expect(core.nextRefresh(of: mail) == at(200))
        core.checkInvariants()
    }

    @Test func W7_refreshMinimumIntervalDefaultsToFifteenMinutesAndZeroTurnsItOff() throws {
        #expect(SchedulerSettings().refreshMinimumInterval == .seconds(900))
        var settings = self.settings
        settings.refreshMinimumInterval = .zero
        var core = try makeScheduler([AppDescriptor(id: mail)], settings: settings)
        try core.run(.launch, for: mail, now: at(0))
        _ = try core.refreshRequested(by: mail, earliestBegin: at(5), now: at(0))
        core.acknowledgeAll(core.clockAdvanced(to: at(5)), now: at(5))
        _ = try core.refreshRequested(by: mail, earliestBegin: at(6), now: at(6))
        #expect(core.nextRefresh(of: mail) == at(6))
    }

    @Test func W7_aNewRequestReplacesThePendingOne() throws {
        var core = try makeScheduler([AppDescriptor(id: mail)], settings: self.settings)
        try core.run(.launch, for: mail, now: at(0))
        _ = try core.refreshRequested(by: mail, earliestBegin: at(10), now: at(0))
        #expect(try core.refreshRequested(by: mail, earliestBegin: at(20), now: at(1)) == [.armWakeup(at(20))])
        try core.run(.enterBackground, for: mail, now: at(1))
        #expect(core.clockAdvanced(to: at(19)) == [])
        #expect(core.state(of: mail) == .suspended)
        let due = core.clockAdvanced(to: at(20))
        #expect(due.first == .resume(mail))
        core.acknowledgeAll(due, now: at(20))
        // Withdrawn: nothing is due any more, so suspending the app leaves no wake-up armed.
        _ = try core.refreshRequested(by: mail, earliestBegin: at(40), now: at(20))
        #expect(try core.refreshCancelled(by: mail, now: at(20)) == [])
        #expect(core.nextRefresh(of: mail) == nil)
        #expect(try core.backgroundWakeCompleted(WakeToken(rawValue: 1), by: mail, now: at(21)).last == .cancelWakeup)
        core.checkInvariants()
    }

    @Test func W8_appsDueAtTheSameInstantAreWokenTogetherInRequestOrder() throws {
        var core = try makeScheduler([AppDescriptor(id: mail), AppDescriptor(id: maps)], settings: self.settings)
        for app in [mail, maps] {
            try core.run(.launch, for: app, now: at(0))
        }
        _ = try core.refreshRequested(by: maps, earliestBegin: at(10), now: at(0))
        _ = try core.refreshRequested(by: mail, earliestBegin: at(10), now: at(1))
        for app in [mail, maps] {
            try core.run(.enterBackground, for: app, now: at(2))
        }
        let due = core.clockAdvanced(to: at(10))
        let (first, second) = (self.refresh(1), self.refresh(2))
        #expect(
            due == [
                .resume(maps),
                published(maps, .suspended, .background, .backgroundWake(.refresh), at: at(10), [first]),
                .deliver(maps, first, token(first, to: maps, in: due)),
                .resume(mail),
                published(mail, .suspended, .background, .backgroundWake(.refresh), at: at(10), [second]),
                .deliver(mail, second, token(second, to: mail, in: due)),
                .armWakeup(at(18)),
            ]
        )
        core.checkInvariants()
    }

    @Test func W7_theRequestOutlivesTheRunAndLaunchesTheAppIntoTheBackground() throws {
        var core = try makeScheduler([protocolApp], settings: self.settings)
        try core.run(.launch, for: mail, now: at(0))
        // An instant in the past is due at once, never before the request.
        #expect(try core.refreshRequested(by: mail, earliestBegin: at(0), now: at(1)) == [.armWakeup(at(1))])
        _ = try core.refreshRequested(by: mail, earliestBegin: at(10), now: at(1))
        _ = try core.run(.terminate, for: mail, now: at(2))
        _ = core.processExited(mail, exit: .exited(0), now: at(3))
        #expect(core.state(of: mail) == .notRunning)
        #expect(core.nextRefresh(of: mail) == at(10))
        let due = core.clockAdvanced(to: at(10))
        let messages: [Message] = [.didFinishLaunching, self.refresh(1)]
        #expect(
            due == [
                .spawn(mail),
                published(mail, .notRunning, .background, .backgroundWake(.refresh), at: at(10), messages),
                .setOOMScoreAdjust(mail, 500),
                .deliver(mail, .didFinishLaunching, token(.didFinishLaunching, to: mail, in: due)),
                .armWakeup(at(18)),
            ]
        )
        core.checkInvariants()
    }

    @Test func W7_onlyARunningAppMayAskAndADueRefreshOfATerminatingAppIsDropped() throws {
        var core = try makeScheduler([protocolApp], settings: self.settings)
        #expect(
            throws: SchedulerError(.notRunning, app: mail, state: .notRunning, wakeReason: .refresh, file: "", line: 0)
        ) {
            do throws(SchedulerError) {
                _ = try core.refreshRequested(by: mail, earliestBegin: at(5), now: at(0))
            } catch {
                throw unlocated(error)
            }
        }
        try core.run(.launch, for: mail, now: at(0))
        _ = try core.refreshRequested(by: mail, earliestBegin: at(1), now: at(0))
        // The app ignores willTerminate; at 1 s it is still terminating: the refresh is dropped, unserved.
        _ = try core.commandReceived(.terminate, for: mail, now: at(0))
        _ = core.clockAdvanced(to: at(1))
        #expect(core.isTerminating(mail))
        #expect(core.nextRefresh(of: mail) == nil)
        core.checkInvariants()
    }
}
