import RunwayCore
import Testing

@testable import Runway
@testable import RunwayProcesses

/// Decision 190: a launch does not read its child's `/proc/PID/stat` in its own loop turn (the read would wait for the
/// exec in progress); the main process joins the tracked processes, with its start time, on the next turn.
@Suite("Launch identity read on the next loop turn (Decision 190)", .serialized)
struct LaunchIdentityTests {
    @Test("A batch of launches leaves every identity pending in its turn; the next turn tracks each main process")
    func identitiesFollowOnTheNextTurn() async throws {
        let (scheduler, apps) = try ProcessFloorTests.launched(0, .signal)
        let more = (0..<6).map { AppID("com.test.identity.\($0)") }
        for app in more {
            try scheduler.register(
                process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
            )
        }
        // The launches and the look in one hop: one loop turn.
        let sameTurn = scheduler.bridge.sync { driver -> (pending: Int, tracked: Int) in
            for app in more { try? driver.command(.launch, for: app) }
            let supervisor = driver.processSupervisor()
            let tracked = more.filter { !(supervisor.apps[$0]?.tracked.isEmpty ?? true) }.count
            return (supervisor.batch.pendingIdentities.count, tracked)
        }
        #expect(sameTurn?.pending == more.count)
        #expect(sameTurn?.tracked == 0)
        let deadline = ContinuousClock.now + .seconds(5)
        var tracked: [AppID: Set<ProcessIdentity>] = [:]
        while ContinuousClock.now < deadline {
            tracked =
                scheduler.bridge.sync { driver in
                    Dictionary(
                        uniqueKeysWithValues: more.map { ($0, driver.processSupervisor().apps[$0]?.tracked ?? []) }
                    )
                } ?? [:]
            if tracked.values.allSatisfy({ !$0.isEmpty }) { break }
            try await Task.sleep(for: .milliseconds(2))
        }
        for (app, status) in scheduler.processes() where more.contains(app) {
            let pid = try #require(status.pid)
            let stat = try #require(ProcFS.stat(pid))
            #expect(tracked[app] == [ProcessIdentity(pid: pid, startTime: stat.startTime)], "\(app)")
        }
        #expect(apps.isEmpty)
        await scheduler.shutdown()
    }
}
