@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

/// The answer to a protocol app's last `endBackgroundTask` is written before the core suspends
/// the app (B5), and the freeze waits (at most `ProcessOptions.suspendDrainTimeout`) until the app has read it and
/// gone idle, so the call returns before the app is frozen, as on iOS.
@Suite("B5: the answer to the last endBackgroundTask reaches a protocol app before it is frozen", .serialized)
struct SuspendDrainTests {
    static let t0 = Instant(nanosecondsSinceOrigin: 10_000_000_000)

    // MARK: SuspensionDrain, the rule

    @Test("B5: a suspension waits only when something written to the app is unread or was just written")
    func B5_aDrainIsNeededOnlyForUnreadOrJustWrittenBytes() {
        let timeout = TimeSpan.milliseconds(50)
        #expect(SuspensionDrain.isNeeded(unreadBytes: 768, writtenThisTurn: false, timeout: timeout))
        // Already read on another core, but maybe not handled yet.
        #expect(SuspensionDrain.isNeeded(unreadBytes: 0, writtenThisTurn: true, timeout: timeout))
        #expect(!SuspensionDrain.isNeeded(unreadBytes: 0, writtenThisTurn: false, timeout: timeout))
        #expect(!SuspensionDrain.isNeeded(unreadBytes: 768, writtenThisTurn: true, timeout: .zero))
    }

    @Test("B5: the app is frozen once it has read everything and no thread of it runs, or at the timeout")
    func B5_drainedWhenReadAndIdleElseAtTheTimeout() {
        let drain = SuspensionDrain(since: Self.t0, timeout: .milliseconds(50))
        let early = Self.t0 + .milliseconds(1)
        #expect(drain.observed(unreadBytes: 768, threadRunning: false, now: early) == .wait)
        // Read, but still handling the answer: wait.
        #expect(drain.observed(unreadBytes: 0, threadRunning: true, now: early) == .wait)
        let read = Self.t0 + .milliseconds(3)
        #expect(drain.observed(unreadBytes: 0, threadRunning: false, now: read) == .drained(after: .milliseconds(3)))
        let justBefore = Self.t0 + .milliseconds(50) - .nanoseconds(1)
        #expect(drain.observed(unreadBytes: 768, threadRunning: true, now: justBefore) == .wait)
        let timeout = Self.t0 + .milliseconds(50)
        #expect(
            drain.observed(unreadBytes: 768, threadRunning: true, now: timeout)
                == .timedOut(waited: .milliseconds(50), unreadBytes: 768)
        )
        #expect(
            drain.observed(unreadBytes: 0, threadRunning: true, now: timeout)
                == .timedOut(waited: .milliseconds(50), unreadBytes: 0)
        )
        // Drained wins at the timeout's instant.
        #expect(
            drain.observed(unreadBytes: 0, threadRunning: false, now: timeout) == .drained(after: .milliseconds(50))
        )
    }

    // MARK: A real protocol app

    @Test(
        "B5: a protocol app logs the answer to its last endBackgroundTask while it is frozen, not after a resume",
        arguments: ProtocolApps.Sample.allCases
    )
    func B5_theAnswerToTheLastEndBackgroundTaskIsReadBeforeTheFreeze(sample: ProtocolApps.Sample) async throws {
        // The sample begins a task on didEnterBackground and ends it 0.1 s later; the end suspends it at once (B5).
        // It prints "ended ..." when the answer has arrived (the Python sample prints the answer itself).
        let run = try await ProtocolApps.HomeRun(sample, AppID("com.test.drain.\(sample)"), taskSeconds: "0.1")
        let suspended = try #require(await run.watcher.first { $0.app == run.app && $0.to == .suspended })
        #expect(suspended.cause == .noOutstandingTasks)
        // The kernel shows the app frozen (or stopped): from now on it can print nothing until it is resumed.
        #expect(await eventually { run.scheduler.processes()[run.app]?.suspensionConfirmed == true })
        // What it printed when the answer arrived is still read from its stdout pipe, while it stays frozen.
        let answer = sample == .python ? "'type': 'reply'" : "ended"
        let printed = await eventually(timeout: .seconds(3)) {
            run.log.values.contains { $0.contains("app=\(run.app)") && $0.contains("ended") && $0.contains(answer) }
        }
        #expect(printed, "\(run.log.values.filter { $0.contains("app=\(run.app)") })")
        #expect(run.scheduler.status().first { $0.app == run.app }?.state == .suspended)
        #expect(run.scheduler.processes()[run.app]?.suspensionConfirmed == true)
        await run.scheduler.shutdown()
    }
}
