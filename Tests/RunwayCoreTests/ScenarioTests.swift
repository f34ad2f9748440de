@_spi(Driver) import RunwayCore
@_spi(Driver) import RunwayTestKit
import Testing

/// The user actions of Behaviour.md section 4, each with its exact messages and instants.
/// Defaults: budget 30 s, warning lead 5 s, entry grace 5 s, termination grace 5 s.
@Suite struct ScenarioTests {
    @Test func S1_freshLaunch() throws {
        var driver = makeDriver()
        try driver.send(.launch, to: mail)
        #expect(driver.messages(to: mail) == [.didFinishLaunching, .didBecomeActive])
        #expect(driver.state(mail) == .active)
        // Through inactive while didFinishLaunching runs (L9).
        #expect(
            driver.transitions(of: mail) == [
                "notRunning->inactive command(launch)", "inactive->active command(launch)",
            ]
        )
    }

    @Test func S2_homeButtonSuspendsAnAppWithoutTasks() throws {
        var driver = makeDriver().launched(mail)
        driver.advance(to: at(10))
        try driver.send(.enterBackground, to: mail)
        // Expected: willResignActive, didEnterBackground at t=10, then suspended at t=10.
        #expect(
            driver.messages(to: mail) == [
                .didFinishLaunching, .didBecomeActive, .willResignActive, .didEnterBackground,
            ]
        )
        #expect(driver.state(mail) == .suspended)
        #expect(driver.lastEvent(of: mail)?.at == at(10))
        #expect(driver.lastEvent(of: mail)?.cause == .noOutstandingTasks)
        #expect(driver.effects(on: mail) == ["t=10.000s suspend(com.example.mail)"])
        // Nothing is left armed: no warning fires later.
        #expect(driver.scheduler.nextWakeup == nil)
    }

    @Test func S3_summonSuspendedApp() throws {
        var driver = makeDriver().launched(mail)
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(60))
        try driver.send(.enterForeground, to: mail)
        #expect(driver.messages(to: mail).suffix(2) == [.willEnterForeground, .didBecomeActive])
        #expect(driver.effects(on: mail).last == "t=60.000s resume(com.example.mail)")
        #expect(driver.state(mail) == .active)
    }

    @Test func S4_appSwitcherResignsActive() throws {
        var driver = makeDriver().launched(mail)
        try driver.send(UserAction.openSwitcher.command, to: mail)
        #expect(driver.messages(to: mail).last == .willResignActive)
        #expect(driver.state(mail) == .inactive)
    }

    @Test func S5_switcherTapThisApp() throws {
        var driver = makeDriver().launched(mail)
        try driver.send(UserAction.openSwitcher.command, to: mail)
        try driver.send(UserAction.switcherSelectThis.command, to: mail)
        #expect(driver.messages(to: mail).suffix(2) == [.willResignActive, .didBecomeActive])
        #expect(driver.state(mail) == .active)
    }

    @Test func S6_switcherChooseAnotherApp() throws {
        var driver = makeDriver().launched(mail)
        try driver.send(UserAction.openSwitcher.command, to: mail)
        driver.beginTask("upload", in: mail)
        try driver.send(UserAction.switcherSelectOther.command, to: mail)
        // From inactive only didEnterBackground is sent.
        #expect(driver.messages(to: mail).suffix(2) == [.willResignActive, .didEnterBackground])
        #expect(driver.state(mail) == .background)
    }

    @Test func S7_lockAndUnlock() throws {
        var driver = makeDriver().launched(mail)
        try driver.send(UserAction.lock.command, to: mail)
        #expect(driver.state(mail) == .inactive)
        try driver.send(UserAction.unlock.command, to: mail)
        #expect(driver.messages(to: mail).suffix(2) == [.willResignActive, .didBecomeActive])
        #expect(driver.state(mail) == .active)
    }

    @Test func S8_shutdownOfferedThenCancelled() throws {
        var driver = makeDriver().launched(mail)
        try driver.send(UserAction.offerShutdown.command, to: mail)
        try driver.send(UserAction.cancelShutdown.command, to: mail)
        #expect(driver.messages(to: mail).suffix(2) == [.willResignActive, .didBecomeActive])
        #expect(driver.state(mail) == .active)
    }

    @Test func S9_shutdownAccepted() throws {
        var driver = makeDriver().launched(mail)
        try driver.send(UserAction.offerShutdown.command, to: mail)
        try driver.send(UserAction.acceptShutdown.command, to: mail)
        #expect(driver.messages(to: mail).suffix(3) == [.willResignActive, .didEnterBackground, .willTerminate])
        #expect(driver.state(mail) == .notRunning)
        let last = driver.lastEvent(of: mail)
        #expect(last?.from == .inactive)
        #expect(last?.cause == .terminated(.requested))
        #expect(last?.messages == [.didEnterBackground, .willTerminate])
    }

    @Test func S10_alertIgnoredThenAnswered() throws {
        var driver = makeDriver().launched(mail)
        try driver.send(UserAction.alert.command, to: mail)
        try driver.send(UserAction.alertIgnored.command, to: mail)
        #expect(driver.messages(to: mail).suffix(2) == [.willResignActive, .didBecomeActive])
        try driver.send(UserAction.alert.command, to: mail)
        try driver.send(UserAction.alertAnswered.command, to: mail)
        #expect(driver.messages(to: mail).suffix(2) == [.willResignActive, .didEnterBackground])
        #expect(driver.state(mail) == .suspended)
    }

    @Test func S11_taskThatEndsInTimeThenSuspended() throws {
        var driver = makeDriver().launched(mail)
        driver.advance(to: at(10))
        let task = driver.beginTask("upload", in: mail)
        try driver.send(.enterBackground, to: mail)
        driver.schedule(.endTask(task, mail), at: at(22))
        driver.runUntilIdle()
        // Expected: background at t=10, task ends at t=22, suspended at t=22; no warning (due at t=35).
        #expect(
            driver.transitions(of: mail).suffix(2) == [
                "active->background command(enterBackground)", "background->suspended noOutstandingTasks",
            ]
        )
        #expect(driver.lastEvent(of: mail)?.at == at(22))
        #expect(!driver.messages(to: mail).contains(.backgroundTaskWillExpire(task)))
    }

    @Test func S12_taskThatIgnoresExpirationIsTerminatedAtTheDeadline() throws {
        var driver = makeDriver().launched(mail)
        driver.advance(to: at(10))
        let task = driver.beginTask("sync", in: mail)
        try driver.send(.enterBackground, to: mail)
        driver.runUntilIdle()
        // Expected: warning at t=35 (40 - 5), terminated at the deadline t=40 with no message.
        let deliveries = driver.deliveries(to: mail)
        #expect(deliveries.last?.message == .backgroundTaskWillExpire(task))
        #expect(deliveries.last?.at == at(35))
        let last = driver.lastEvent(of: mail)
        #expect(last?.at == at(40))
        #expect(last?.to == .notRunning)
        #expect(last?.cause == .terminated(.budgetOverrun))
        #expect(last?.messages == [])
        #expect(
            driver.effects(on: mail) == [
                "t=40.000s stop(com.example.mail)", "t=40.000s endTasks(com.example.mail, [\(task)])",
            ]
        )
    }

    @Test func S12_processVersionIsKilledAtTheDeadlineWhateverItDoesWithSIGTERM() throws {
        var driver = makeDriver([process(mail)])
        driver.terminateBehavior[mail] = .ignores
        try driver.send(.launch, to: mail)
        _ = driver.beginTask("sync", in: mail)
        try driver.send(.enterBackground, to: mail)
        driver.runUntilIdle()
        // SIGKILL at the deadline t=30, no SIGTERM (B6, P2), notRunning on exit.
        #expect(
            driver.effects(on: mail).filter { !$0.contains("endTasks") } == [
                "t=0.000s spawn(com.example.mail)",
                "t=30.000s kill(com.example.mail)",
            ]
        )
        #expect(driver.lastEvent(of: mail)?.cause == .terminated(.budgetOverrun))
        #expect(driver.lastEvent(of: mail)?.exit == .signaled(9))
        #expect(driver.lastEvent(of: mail)?.at == at(30))
    }

    @Test func S13_exitsOnSuspendAppPressedHome() throws {
        var driver = makeDriver([AppDescriptor(id: mail, exitsOnSuspend: true)]).launched(mail)
        try driver.send(UserAction.home.command, to: mail)
        // E1 by default: terminated instead of entering the background.
        #expect(
            driver.messages(to: mail) == [.didFinishLaunching, .didBecomeActive, .willResignActive, .willTerminate]
        )
        #expect(driver.state(mail) == .notRunning)
        #expect(driver.lastEvent(of: mail)?.cause == .terminated(.exitsOnSuspend))
        #expect(driver.effects(on: mail) == ["t=0.000s stop(com.example.mail)"])
    }

    @Test func S14_memoryPressurePurgesSuspendedAppWithoutMessage() throws {
        var driver = makeDriver().launched(mail)
        try driver.send(.enterBackground, to: mail)
        let before = driver.messages(to: mail).count
        #expect(driver.purge() == mail)
        #expect(driver.messages(to: mail).count == before)
        #expect(driver.state(mail) == .notRunning)
        #expect(driver.lastEvent(of: mail)?.cause == .terminated(.memoryPressure))
    }
}
