@_spi(Driver) import RunwayCore
@_spi(Driver) import RunwayTestKit
import Testing

/// E1 and E2 (exits on suspend), N1 (notifications), P3 (memory) and P4 (shutdown) on the core.
@Suite struct ExitsOnSuspendTests {
    @Test func E1_byDefaultHomeTerminatesTheAppWhichNeverEntersTheBackground() throws {
        // No ExitsOnSuspendStyle anywhere: the default.
        var driver = makeDriver([AppDescriptor(id: mail, exitsOnSuspend: true)]).launched(mail)
        driver.advance(to: at(1))
        #expect(driver.beginTask("upload", in: mail) == .invalid)
        try driver.send(.enterBackground, to: mail)
        // Expected at t=1: willResignActive, willTerminate; inactive while it runs, then gone; no background.
        #expect(
            driver.messages(to: mail) == [.didFinishLaunching, .didBecomeActive, .willResignActive, .willTerminate]
        )
        #expect(driver.events.map(\.to) == [.inactive, .active, .inactive, .notRunning])
        #expect(driver.lastEvent(of: mail)?.cause == .terminated(.exitsOnSuspend))
        #expect(driver.lastEvent(of: mail)?.at == at(1))
    }

    @Test func E2_drainStyleFinishesTasksThenTerminatesInsteadOfSuspending() throws {
        var driver = makeDriver([AppDescriptor(id: mail, exitsOnSuspend: true, exitsOnSuspendStyle: .drain)])
            .launched(mail)
        let task = driver.beginTask("upload", in: mail)
        try driver.send(.enterBackground, to: mail)
        #expect(driver.state(mail) == .background)
        driver.advance(to: at(4))
        try driver.endTask(task, in: mail)
        // Expected at t=4: willTerminate, then gone; never suspended.
        #expect(driver.deliveries(to: mail).last.map { [$0.at] } == [at(4)])
        #expect(driver.messages(to: mail).last == .willTerminate)
        #expect(!driver.events.contains { $0.to == .suspended })
        #expect(driver.lastEvent(of: mail)?.cause == .terminated(.exitsOnSuspend))
    }

    @Test func E2_atTheDeadlineWithSuspendPolicyItTerminatesInstead() throws {
        var driver = makeDriver(
            [AppDescriptor(id: mail, exitsOnSuspend: true, exitsOnSuspendStyle: .drain)],
            settings: SchedulerSettings(overrunPolicy: .suspend)
        ).launched(mail)
        driver.beginTask("stuck", in: mail)
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(30))
        #expect(driver.messages(to: mail).last == .willTerminate)
        #expect(driver.lastEvent(of: mail)?.cause == .terminated(.exitsOnSuspend))
        #expect(driver.lastEvent(of: mail)?.at == at(30))
    }

    @Test func E1_immediateStyleIsInactiveThenGoneNeverInTheBackgroundAndGetsNoTasks() throws {
        var driver = makeDriver([AppDescriptor(id: mail, exitsOnSuspend: true, exitsOnSuspendStyle: .immediate)])
            .launched(mail)
        #expect(driver.beginTask("upload", in: mail) == .invalid)
        try driver.send(.enterBackground, to: mail)
        #expect(
            driver.messages(to: mail) == [.didFinishLaunching, .didBecomeActive, .willResignActive, .willTerminate]
        )
        #expect(driver.events.map(\.to) == [.inactive, .active, .inactive, .notRunning])
        #expect(throws: SchedulerError.self) { try driver.send(.launchInBackground, to: mail) }
    }

    @Test func E1_immediateStyleFromTheSchedulerDefault() throws {
        var driver = makeDriver(
            [AppDescriptor(id: mail, exitsOnSuspend: true)],
            settings: SchedulerSettings(exitsOnSuspendStyle: .immediate)
        ).launched(mail)
        try driver.send(.resignActive, to: mail)
        try driver.send(.enterBackground, to: mail)
        #expect(driver.messages(to: mail).suffix(2) == [.willResignActive, .willTerminate])
    }
}

@Suite struct NotificationTests {
    @Test func N1_suspendedAppGetsCoalescedNotificationsBetweenWillEnterForegroundAndDidBecomeActive() throws {
        var driver = makeDriver().launched(mail)
        try driver.send(.enterBackground, to: mail)
        try driver.post(name: "sync", payload: "1", to: mail)
        try driver.post(name: "badge", payload: "3", to: mail)
        try driver.post(name: "sync", payload: "2", to: mail)
        let count = driver.messages(to: mail).count
        #expect(driver.scheduler.status(of: mail, now: driver.now)?.heldNotifications == 2)
        try driver.send(.enterForeground, to: mail)
        #expect(
            Array(driver.messages(to: mail).dropFirst(count)) == [
                .willEnterForeground, .notification(name: "sync", payload: "2"),
                .notification(name: "badge", payload: "3"), .didBecomeActive,
            ]
        )
    }

    @Test func N1_queueIsBoundedAndEvictsTheOldestName() throws {
        var driver = makeDriver(settings: SchedulerSettings(notificationQueueLimit: 2)).launched(mail)
        try driver.send(.enterBackground, to: mail)
        var scheduler = driver.scheduler
        _ = try scheduler.notificationPosted(name: "a", payload: "", to: mail, now: driver.now)
        _ = try scheduler.notificationPosted(name: "b", payload: "", to: mail, now: driver.now)
        let (evicted, _) = try scheduler.notificationPosted(name: "c", payload: "", to: mail, now: driver.now)
        #expect(evicted == "a")
        #expect(scheduler.status(of: mail, now: driver.now)?.heldNotifications == 2)
    }

    @Test func N1_runningAppsGetNotificationsInOrderAndNotRunningAppsRefuse() throws {
        var driver = makeDriver()
        #expect(throws: SchedulerError.self) { try driver.post(name: "x", payload: "", to: mail) }
        try driver.send(.launch, to: mail)
        try driver.post(name: "x", payload: "p", to: mail)
        #expect(driver.messages(to: mail).last == .notification(name: "x", payload: "p"))
    }

    @Test func N1_pendingNotificationToABusyAppIsCoalesced() throws {
        var driver = makeDriver().launched(mail)
        driver.replies[mail] = ["willResignActive": .after(.seconds(1))]
        try driver.send(.resignActive, to: mail)
        try driver.post(name: "x", payload: "1", to: mail)
        try driver.post(name: "x", payload: "2", to: mail)
        driver.advance(to: at(1))
        #expect(driver.messages(to: mail).suffix(2) == [.willResignActive, .notification(name: "x", payload: "2")])
    }
}

@Suite struct MemoryAndShutdownTests {
    @Test func P3_warningGoesToRunningAppsOnlyAndPurgeTakesTheLongestSuspendedFirst() throws {
        var driver = makeDriver([AppDescriptor(id: mail), AppDescriptor(id: maps), AppDescriptor(id: music)])
        for app in [mail, maps, music] { try driver.send(.launch, to: app) }
        driver.advance(to: at(1))
        try driver.send(.enterBackground, to: maps)
        driver.advance(to: at(2))
        try driver.send(.enterBackground, to: music)
        driver.memoryWarning()
        #expect(driver.messages(to: mail).last == .didReceiveMemoryWarning)
        #expect(!driver.messages(to: maps).contains(.didReceiveMemoryWarning))
        #expect(driver.purge() == maps)
        #expect(driver.purge() == music)
        // Active apps are never purged.
        #expect(driver.purge() == nil)
        #expect(driver.state(mail) == .active)
    }

    @Test func P4_shutdownTerminatesEveryAppInParallelByTheTerminateRows() throws {
        var driver = makeDriver([process(mail), AppDescriptor(id: maps), process(music)])
        for app in [mail, maps, music] { try driver.send(.launch, to: app) }
        try driver.send(.resignActive, to: maps)
        try driver.send(.enterBackground, to: music)
        driver.terminateBehavior[mail] = .exits(after: .seconds(1))
        driver.shutdown()
        driver.runUntilIdle()
        #expect(driver.scheduler.allAppsStopped)
        #expect(driver.messages(to: mail).suffix(3) == [.willResignActive, .didEnterBackground, .willTerminate])
        #expect(driver.messages(to: maps).suffix(2) == [.didEnterBackground, .willTerminate])
        // The suspended process is killed without a message.
        #expect(driver.effects(on: music).last == "t=0.000s kill(com.example.music)")
        #expect(driver.lastEvent(of: mail)?.at == at(1))
        #expect(throws: SchedulerError.self) { try driver.send(.launch, to: maps) }
    }

    @Test func protocolViolationTerminatesWithoutMessages() throws {
        var driver = makeDriver([process(mail)])
        try driver.send(.launch, to: mail)
        let count = driver.messages(to: mail).count
        driver.protocolViolation(by: mail)
        driver.runUntilIdle()
        #expect(driver.messages(to: mail).count == count)
        #expect(driver.lastEvent(of: mail)?.cause == .terminated(.protocolViolation))
    }
}
