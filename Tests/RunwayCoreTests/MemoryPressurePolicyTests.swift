@_spi(Driver) import RunwayCore
@_spi(Driver) import RunwayTestKit
import Testing

/// P3 on the core: pressure samples in, the exact warning and purge actions out, on explicit instants.
///
/// The apps are brought to their states by the simulated driver; the samples then go to a copy of its
/// scheduler, so that each call's action list is seen whole.
@Suite struct MemoryPressurePolicyTests {
    /// `mail` active; `maps` suspended at t=1 and `music` at t=2 (no tasks, so they suspend on entry); the
    /// scheduler at t=2.
    static func oneActiveTwoSuspended(
        _ descriptors: [AppDescriptor] = [AppDescriptor(id: mail), AppDescriptor(id: maps), AppDescriptor(id: music)],
        settings: SchedulerSettings = SchedulerSettings()
    ) throws -> Scheduler {
        var driver = makeDriver(descriptors, settings: settings)
        for app in [mail, maps, music] { try driver.send(.launch, to: app) }
        driver.advance(to: at(1))
        try driver.send(.enterBackground, to: maps)
        driver.advance(to: at(2))
        try driver.send(.enterBackground, to: music)
        #expect(driver.state(maps) == .suspended)
        #expect(driver.state(music) == .suspended)
        return driver.scheduler
    }

    /// The one `didReceiveMemoryWarning` delivery expected to `app`, with the token the scheduler chose.
    static func warning(to app: AppID, in actions: [Action]) -> Action? {
        actions.first {
            if case .deliver(app, .didReceiveMemoryWarning, _) = $0 { return true }
            return false
        }
    }

    static func token(of action: Action?) -> MessageToken? {
        if case .deliver(_, _, let token)? = action { return token }
        return nil
    }

    static func purgeEvent(_ app: AppID, at instant: Instant) -> Action {
        .publish(
            TransitionEvent(
                app: app,
                from: .suspended,
                to: .notRunning,
                cause: .terminated(.memoryPressure),
                at: instant,
                messages: []
            )
        )
    }

    @Test func P3_warningOnceUntilPressureFalls() throws {
        var scheduler = makeDriver().launched(mail).scheduler

        let first = scheduler.memoryPressureSampled(.psi(percent: 15), now: at(10))
        let token = try #require(Self.token(of: Self.warning(to: mail, in: first.actions)))
        #expect(first.actions == [.deliver(mail, .didReceiveMemoryWarning, token)])
        #expect(first.purged == nil)
        #expect(scheduler.memoryPressureLevel == .warning)
        #expect(scheduler.messageReturned(token, from: mail, now: at(10)) == [])

        // Still at warning, then critical (nothing to purge): no second warning.
        #expect(scheduler.memoryPressureSampled(.psi(percent: 20), now: at(11)).actions == [])
        let critical = scheduler.memoryPressureSampled(.psi(percent: 50), now: at(12))
        #expect(critical.actions == [])
        #expect(critical.purged == nil)
        #expect(scheduler.memoryPressureLevel == .critical)

        // Back to normal, then up again: one more warning.
        #expect(scheduler.memoryPressureSampled(.psi(percent: 5), now: at(13)).actions == [])
        #expect(scheduler.memoryPressureLevel == .normal)
        let again = scheduler.memoryPressureSampled(.psi(percent: 12), now: at(14))
        let secondToken = try #require(Self.token(of: Self.warning(to: mail, in: again.actions)))
        #expect(secondToken > token)
        #expect(again.actions == [.deliver(mail, .didReceiveMemoryWarning, secondToken)])
    }

    @Test func P3_onePurgePerCriticalSample_longestSuspendedFirst() throws {
        var scheduler = try Self.oneActiveTwoSuspended()

        // Normal to critical at once: the running app is warned, then one suspended app is purged.
        let first = scheduler.memoryPressureSampled(.psi(percent: 40), now: at(10))
        let token = try #require(Self.token(of: Self.warning(to: mail, in: first.actions)))
        #expect(first.purged == maps)
        #expect(
            first.actions == [
                .deliver(mail, .didReceiveMemoryWarning, token), .stop(maps), Self.purgeEvent(maps, at: at(10)),
            ]
        )

        let second = scheduler.memoryPressureSampled(.psi(percent: 40), now: at(11))
        #expect(second.purged == music)
        #expect(second.actions == [.stop(music), Self.purgeEvent(music, at: at(11))])

        // Nothing suspended is left; the active app is never purged.
        let third = scheduler.memoryPressureSampled(.psi(percent: 90), now: at(12))
        #expect(third.purged == nil)
        #expect(third.actions == [])
        #expect(scheduler.state(of: mail) == .active)
    }

    @Test func P3_rssCeilingWarnsAtNinetyPercent() throws {
        var scheduler = try Self.oneActiveTwoSuspended()

        let below = scheduler.memoryPressureSampled(.resident(bytes: 899, ceilingBytes: 1_000), now: at(10))
        #expect(below.actions == [])
        #expect(scheduler.memoryPressureLevel == .normal)

        let warning = scheduler.memoryPressureSampled(.resident(bytes: 900, ceilingBytes: 1_000), now: at(11))
        let token = try #require(Self.token(of: Self.warning(to: mail, in: warning.actions)))
        #expect(warning.actions == [.deliver(mail, .didReceiveMemoryWarning, token)])
        #expect(warning.purged == nil)

        // Just under the ceiling: still warning, nothing purged.
        let under = scheduler.memoryPressureSampled(.resident(bytes: 999, ceilingBytes: 1_000), now: at(12))
        #expect(under.actions == [])
        #expect(under.purged == nil)

        // At the ceiling: critical, one purge.
        let ceiling = scheduler.memoryPressureSampled(.resident(bytes: 1_000, ceilingBytes: 1_000), now: at(13))
        #expect(ceiling.purged == maps)
        #expect(ceiling.actions == [.stop(maps), Self.purgeEvent(maps, at: at(13))])
    }

    @Test func P3_psiThresholdsComeFromTheSettings() throws {
        let policy = MemoryPressurePolicy(warningPercent: 20, criticalPercent: 50)
        var scheduler = try Self.oneActiveTwoSuspended(settings: SchedulerSettings(memoryPressure: policy))

        #expect(scheduler.memoryPressureSampled(.psi(percent: 19.9), now: at(10)).actions == [])
        #expect(scheduler.memoryPressureLevel == .normal)
        let warning = scheduler.memoryPressureSampled(.psi(percent: 20), now: at(11))
        #expect(Self.warning(to: mail, in: warning.actions) != nil)
        #expect(warning.purged == nil)
        #expect(scheduler.memoryPressureSampled(.psi(percent: 49.9), now: at(12)).purged == nil)
        #expect(scheduler.memoryPressureSampled(.psi(percent: 50), now: at(13)).purged == maps)
    }

    @Test func P3_unreadableSamplesChangeNothing() throws {
        var scheduler = try Self.oneActiveTwoSuspended()

        // At normal: nothing, still normal.
        #expect(scheduler.memoryPressureSampled(.unreadable, now: at(10)) == (nil, []))
        #expect(scheduler.memoryPressureLevel == .normal)

        // At critical: no purge while unreadable, and the level is kept (no second warning after it).
        #expect(scheduler.memoryPressureSampled(.psi(percent: 40), now: at(11)).purged == maps)
        let unreadable = scheduler.memoryPressureSampled(.unreadable, now: at(12))
        #expect(unreadable.purged == nil)
        #expect(unreadable.actions == [])
        #expect(scheduler.memoryPressureLevel == .critical)
        #expect(scheduler.state(of: music) == .suspended)
        let next = scheduler.memoryPressureSampled(.psi(percent: 40), now: at(13))
        #expect(next.purged == music)
        #expect(next.actions == [.stop(music), Self.purgeEvent(music, at: at(13))])
    }

    @Test func P3_activeAndInactiveAppsAreNeverPurged() throws {
        var driver = makeDriver([AppDescriptor(id: mail), AppDescriptor(id: maps)])
        for app in [mail, maps] { try driver.send(.launch, to: app) }
        try driver.send(.resignActive, to: maps)
        var scheduler = driver.scheduler
        #expect(scheduler.state(of: maps) == .inactive)

        for second in Int64(10)...12 {
            #expect(scheduler.memoryPressureSampled(.psi(percent: 100), now: at(second)).purged == nil)
        }
        #expect(scheduler.state(of: mail) == .active)
        #expect(scheduler.state(of: maps) == .inactive)
        #expect(!scheduler.isTerminating(mail))
        #expect(!scheduler.isTerminating(maps))
    }

    @Test func P3_backgroundModeAppIsPurgedAfterTheSuspendedOnes() throws {
        var driver = makeDriver([AppDescriptor(id: mail, backgroundModes: ["audio"]), AppDescriptor(id: maps)])
        for app in [mail, maps] { try driver.send(.launch, to: app) }
        try driver.send(.enterBackground, to: mail)
        driver.advance(to: at(1))
        try driver.send(.enterBackground, to: maps)
        var scheduler = driver.scheduler
        #expect(scheduler.state(of: mail) == .background)
        #expect(scheduler.state(of: maps) == .suspended)

        // The background-mode app entered the background first, yet the suspended app goes first.
        let purged = (Int64(10)...12).map { scheduler.memoryPressureSampled(.psi(percent: 40), now: at($0)).purged }
        #expect(purged == [maps, mail, nil])
    }

    @Test func P3_suspendedProcessIsKilledWithoutThawing() throws {
        var driver = makeDriver([process(mail)])
        try driver.send(.launch, to: mail)
        try driver.send(.enterBackground, to: mail)
        var scheduler = driver.scheduler
        #expect(scheduler.state(of: mail) == .suspended)

        let sample = scheduler.memoryPressureSampled(.psi(percent: 30), now: at(10))
        #expect(sample.purged == mail)
        #expect(sample.actions == [.kill(mail)])
        #expect(scheduler.isTerminating(mail))
        // A second critical sample finds nothing else: the app being killed is not purged twice.
        #expect(scheduler.memoryPressureSampled(.psi(percent: 30), now: at(11)) == (nil, []))
    }

    @Test func P3_levelClassification() {
        let policy = MemoryPressurePolicy()
        #expect(policy.warningPercent == 10)
        #expect(policy.criticalPercent == 30)
        let psi: [(Double, MemoryPressureLevel)] = [
            (0, .normal), (9.99, .normal), (10, .warning), (29.99, .warning),
            (30, .critical), (100, .critical),
        ]
        for (percent, level) in psi {
            #expect(policy.level(of: .psi(percent: percent)) == level, "\(percent)%")
        }
        let resident: [(UInt64, MemoryPressureLevel)] = [
            (0, .normal), (8_999, .normal), (9_000, .warning),
            (9_999, .warning), (10_000, .critical), (20_000, .critical),
        ]
        for (bytes, level) in resident {
            #expect(policy.level(of: .resident(bytes: bytes, ceilingBytes: 10_000)) == level, "\(bytes) bytes")
        }
        #expect(policy.level(of: .unreadable) == nil)
    }

    @Test func P3_warningAboveCriticalIsRefused() async {
        await #expect(processExitsWith: .failure) {
            _ = MemoryPressurePolicy(warningPercent: 31, criticalPercent: 30)
        }
    }
}
