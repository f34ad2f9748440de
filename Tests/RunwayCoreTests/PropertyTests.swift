@_spi(Driver) @_spi(Processes) import RunwayCore
@_spi(Driver) @_spi(Benchmarks) import RunwayTestKit
import Testing

/// Random command sequences against many apps of every kind, with a seeded generator. After every step the
/// core's invariants hold; every deadline fires exactly once at its instant; no message reaches a suspended
/// app (the simulated driver traps on that); the same seed gives the same trace.
@Suite struct PropertyTests {
    static let apps: [AppDescriptor] = [
        AppDescriptor(id: "com.example.embedded"),
        AppDescriptor(id: "com.example.protocol", kind: .process(ProcessSpec(arguments: ["a"], speaksProtocol: true))),
        AppDescriptor(id: "com.example.plain", kind: .process(ProcessSpec(arguments: ["b"]))),
        AppDescriptor(
            id: "com.example.drain",
            exitsOnSuspend: true,
            exitsOnSuspendStyle: .drain,
            backgroundTimeBudget: .seconds(4)
        ),
        AppDescriptor(id: "com.example.immediate", exitsOnSuspend: true, exitsOnSuspendStyle: .immediate),
        AppDescriptor(id: "com.example.audio", backgroundModes: ["audio"]),
        AppDescriptor(id: "com.example.short", backgroundTimeBudget: .milliseconds(700)),
    ]

    /// Runs `steps` random operations and returns the trace.
    static func run(seed: UInt64, steps: Int, policy: OverrunPolicy) -> [String] {
        var random = SeededRandom(seed: seed)
        let settings = SchedulerSettings(
            backgroundTimeBudget: .seconds(3),
            expirationWarningLead: .seconds(1),
            backgroundEntryGrace: .milliseconds(1_500),
            terminationGrace: .seconds(2),
            overrunPolicy: policy,
            notificationQueueLimit: 3
        )
        var driver = makeDriver(Self.apps, settings: settings)
        driver.recordsFiredTimers = true
        let ids = Self.apps.map(\.id)
        let replies: [SimulatedDriver.Reply] = [.immediately, .immediately, .after(.milliseconds(300)), .never]
        for app in ids {
            driver.terminateBehavior[app] = random.next(below: 3) == 0 ? .ignores : .exits(after: .milliseconds(100))
            if random.next(below: 2) == 0 { driver.endsTaskOnExpiration.insert(app) }
        }
        var issued: [BackgroundTaskID] = []
        for _ in 0..<steps {
            let app = ids[Int(random.next(below: UInt64(ids.count)))]
            switch random.next(below: 16) {
            case 0..<5:
                let command = Command.allCases[Int(random.next(below: UInt64(Command.allCases.count)))]
                if command == .enterBackground || command == .terminate {
                    let reply = replies[Int(random.next(below: UInt64(replies.count)))]
                    driver.replies[app] = ["didEnterBackground": reply, "willTerminate": reply]
                }
                _ = try? driver.send(command, to: app)
            case 5..<8:
                let id = driver.beginTask("t", in: app)
                if id != .invalid { issued.append(id) }
            case 8..<10:
                // Sometimes the right app's task, sometimes any issued id (errors must change nothing).
                if let id = driver.outstandingTasks(of: app).first, random.next(below: 3) > 0 {
                    _ = try? driver.endTask(id, in: app)
                } else if !issued.isEmpty {
                    _ = try? driver.endTask(issued[Int(random.next(below: UInt64(issued.count)))], in: app)
                }
            case 10:
                _ = try? driver.post(name: "n\(random.next(below: 5))", payload: "\(random.next(below: 9))", to: app)
            case 11:
                if random.next(below: 2) == 0 { driver.memoryWarning() } else { driver.purge() }
            case 12:
                if driver.scheduler.state(of: app) != .notRunning,
                    driver.scheduler.status(of: app, now: driver.now)?.isProcess == true
                {
                    driver.processExits(app, random.next(below: 2) == 0 ? .exited(1) : .signaled(15))
                }
            default:
                driver.advance(by: .milliseconds(Int64(random.next(below: 2_500))))
                // Every deadline at or before now has fired: nothing overdue is left armed.
                if let next = driver.scheduler.nextWakeup { #expect(next > driver.now) }
            }
            driver.scheduler.checkInvariants()
            for id in ids {
                if let last = driver.lastEvent(of: id) {
                    #expect(last.to == driver.scheduler.state(of: id), "\(id): event stream and state disagree")
                }
            }
        }
        driver.shutdown()
        driver.runUntilIdle()
        #expect(driver.scheduler.allAppsStopped)
        driver.scheduler.checkInvariants()
        let firings = driver.firedTimers
        #expect(firings.allSatisfy { $0.firedAt == $0.deadline }, "a deadline fired late or early")
        let keys = firings.map { "\($0.app) \($0.kind) \($0.deadline)" }
        #expect(Set(keys).count == keys.count, "a deadline fired twice")
        #expect(firings.count > 10, "the run should exercise deadlines; got \(firings.count)")
        return driver.log.map(\.description)
    }

    @Test(arguments: [1, 7, 42, 2026] as [UInt64])
    func randomCommandSequencesKeepTheInvariants(seed: UInt64) {
        for policy in OverrunPolicy.allCases {
            let trace = Self.run(seed: seed, steps: 1_500, policy: policy)
            #expect(trace.count > 1_000)
        }
    }

    @Test func sameSeedGivesTheSameTraceTwice() {
        let first = Self.run(seed: 99, steps: 1_000, policy: .terminate)
        let second = Self.run(seed: 99, steps: 1_000, policy: .terminate)
        #expect(first == second)
        let other = Self.run(seed: 100, steps: 1_000, policy: .terminate)
        #expect(first != other)
    }
}
