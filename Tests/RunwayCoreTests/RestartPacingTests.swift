@_spi(Driver) import RunwayCore
import Testing

/// KeepAlive restarts start at least `restartSpacing` (1 s / `RestartRateLimit`) apart over every app, in the order
/// they came due, none dropped: a fleet that crashes together is restarted one spawn per turn, so its spawns
/// cannot pile into one loop turn and delay other apps' deadlines. Default spacing 20 ms.
@Suite struct RestartPacingTests {
    static let apps: [AppID] = (0..<5).map { AppID("com.example.looper\($0)") }

    /// A plain process app (no message is awaited) with `KeepAlive` and a 1 s `ThrottleInterval`.
    static func looper(_ id: AppID) -> AppDescriptor {
        var descriptor = process(id, speaksProtocol: false)
        descriptor.keepAlive = RestartPolicy(conditions: [.always], throttleInterval: .seconds(Int64(1)))
        return descriptor
    }

    static func spawned(_ actions: [Action]) -> [AppID] {
        actions.compactMap { action in
            guard case .spawn(let app) = action else { return nil }
            return app
        }
    }

    @Test func restartsDueTogetherStartOneSpacingApartInTheOrderTheyCameDue() throws {
        var scheduler = try makeScheduler(Self.apps.map(Self.looper))
        for app in Self.apps { _ = try scheduler.run(.launch, for: app, now: at(0)) }
        // looper0...3 exit at t=1 (restarts due at t=2); looper4 5 ms later (due at t=2.005).
        for app in Self.apps.prefix(4) { _ = scheduler.processExited(app, exit: .exited(1), now: at(1)) }
        _ = scheduler.processExited(Self.apps[4], exit: .exited(1), now: at(milliseconds: 1_005))

        // Expected: at t=2 only looper0 starts; looper1...3 wait for t=2.020, 2.040, 2.060, and looper4, due
        // after them, for t=2.080.
        #expect(Self.spawned(scheduler.clockAdvanced(to: at(2))) == [Self.apps[0]])
        let waiting = Self.apps.dropFirst().map { scheduler.restartStatus(of: $0)?.pending?.at }
        #expect(waiting == [2_020, 2_040, 2_060, 2_005].map { at(milliseconds: $0) })
        #expect(Self.spawned(scheduler.clockAdvanced(to: at(milliseconds: 2_005))) == [])
        #expect(scheduler.restartStatus(of: Self.apps[4])?.pending?.at == at(milliseconds: 2_080))
        for (offset, app) in Self.apps.dropFirst().enumerated() {
            let turn = at(milliseconds: 2_020 + 20 * Int64(offset))
            // Expected: nothing a tick early (B9), then the app at its turn, as a restart (its attempt 1).
            #expect(Self.spawned(scheduler.clockAdvanced(to: turn - .nanoseconds(1))) == [])
            #expect(Self.spawned(scheduler.clockAdvanced(to: turn)) == [app])
            #expect(scheduler.restartStatus(of: app)?.restarts == 1)
            #expect(scheduler.restartStatus(of: app)?.pending == nil)
        }
        #expect(scheduler.armedTimers.isEmpty)
    }

    @Test func aRestartAfterTheSpacingStartsAtItsInstant() throws {
        var settings = SchedulerSettings()
        settings.restartSpacing = .milliseconds(Int64(500))
        var scheduler = try makeScheduler(Self.apps.prefix(2).map(Self.looper), settings: settings)
        for app in Self.apps.prefix(2) { _ = try scheduler.run(.launch, for: app, now: at(0)) }
        _ = scheduler.processExited(Self.apps[0], exit: .exited(1), now: at(1))
        _ = scheduler.processExited(Self.apps[1], exit: .exited(1), now: at(milliseconds: 1_400))
        // Expected: looper0 at t=2; looper1, due at t=2.400, waits for t=2.500 (500 ms after looper0).
        #expect(Self.spawned(scheduler.clockAdvanced(to: at(2))) == [Self.apps[0]])
        #expect(Self.spawned(scheduler.clockAdvanced(to: at(milliseconds: 2_400))) == [])
        #expect(Self.spawned(scheduler.clockAdvanced(to: at(milliseconds: 2_500))) == [Self.apps[1]])
        // Expected: looper0's next restart (its run ended at t=3, due at t=5 after two failures) is long after
        // the spacing and starts at its instant.
        _ = scheduler.processExited(Self.apps[0], exit: .exited(1), now: at(3))
        #expect(Self.spawned(scheduler.clockAdvanced(to: at(5))) == [Self.apps[0]])
    }

    @Test func anOperatorTerminateCancelsAWaitingRestart() throws {
        var scheduler = try makeScheduler(Self.apps.prefix(2).map(Self.looper))
        for app in Self.apps.prefix(2) { _ = try scheduler.run(.launch, for: app, now: at(0)) }
        for app in Self.apps.prefix(2) { _ = scheduler.processExited(app, exit: .exited(1), now: at(1)) }
        #expect(Self.spawned(scheduler.clockAdvanced(to: at(2))) == [Self.apps[0]])
        #expect(scheduler.restartStatus(of: Self.apps[1])?.pending?.at == at(milliseconds: 2_020))
        _ = try scheduler.run(.terminate, for: Self.apps[1], now: at(milliseconds: 2_010))
        #expect(scheduler.restartStatus(of: Self.apps[1])?.pending == nil)
        #expect(Self.spawned(scheduler.clockAdvanced(to: at(milliseconds: 2_020))) == [])
        #expect(scheduler.state(of: Self.apps[1]) == .notRunning)
    }
}
