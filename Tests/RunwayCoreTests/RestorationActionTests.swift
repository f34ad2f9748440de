@_spi(Driver) import RunwayCore
import Testing

/// Section 10, state restoration: which launch hands an app its preserved state and what a run's end does to a
/// stored state. Exact action lists on a manual clock; budget 30 s, TerminationGrace 5 s,
/// StateRestorationCrashWindow 30 s.
@Suite struct RestorationActionTests {
    /// `action`, a publish, with the launch's restoration set.
    func restoring(_ action: Action, from ending: RunEnding) -> Action {
        guard case .publish(var event) = action else { return action }
        event.restoration = ending
        return .publish(event)
    }

    /// `action`, a publish of a run's end, with what became of the stored state.
    func ending(_ action: Action, _ ending: RunEnding, kept: Bool) -> Action {
        guard case .publish(var event) = action else { return action }
        event.runEnding = ending
        event.preservedStateKept = kept
        return .publish(event)
    }

    /// A process app launched at 0, its state preserved, suspended at 1 (didEnterBackground returned).
    func preservedAndSuspended() throws -> Scheduler {
        var scheduler = try makeScheduler([protocolApp])
        try scheduler.run(.launch, for: mail, now: at(0))
        #expect(try scheduler.statePreserved(for: mail))
        try scheduler.run(.enterBackground, for: mail, now: at(1))
        #expect(scheduler.state(of: mail) == .suspended)
        return scheduler
    }

    @Test func R2_aLaunchAfterAPurgeHandsBackTheStateThePurgedRunPreserved() throws {
        var scheduler = try self.preservedAndSuspended()
        // Expected: SIGKILL at once (P2); on the exit, the stored state is kept for the next launch, ended purged.
        #expect(scheduler.purgeRequested(now: at(5)) == (mail, [.kill(mail)]))
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(6)) == [
                self.ending(
                    published(
                        mail,
                        .suspended,
                        .notRunning,
                        .terminated(.memoryPressure),
                        at: at(6),
                        exit: .signaled(9)
                    ),
                    .purged,
                    kept: true
                )
            ]
        )
        // Expected at 10: the launch says it restores a purged run's state, then didFinishLaunching.
        let launch = try scheduler.commandReceived(.launch, for: mail, now: at(10))
        #expect(
            launch == [
                .spawn(mail),
                self.restoring(
                    published(mail, .notRunning, .inactive, .command(.launch), at: at(10), [.didFinishLaunching]),
                    from: .purged
                ),
                .setOOMScoreAdjust(mail, 200),
                .deliver(mail, .didFinishLaunching, token(.didFinishLaunching, to: mail, in: launch)),
            ]
        )
        let status = scheduler.status(of: mail, now: at(10))
        #expect(status?.restoredFrom == .purged)
        #expect(status?.lastRunEnding == .purged)
        #expect(status?.hasPreservedState == true)
    }

    @Test func R2_aWakeUpLaunchRestoresAsAnyLaunchDoes() throws {
        var scheduler = try self.preservedAndSuspended()
        _ = scheduler.shutdownRequested(now: at(5))
        _ = scheduler.processExited(mail, exit: .signaled(9), now: at(6))
        // A new scheduler, as a restarted daemon has: the state was found with its recorded ending.
        var next = try makeScheduler([protocolApp])
        #expect(try next.preservedStateFound(for: mail, recordedEnding: .daemonRestart, sameBoot: true))
        let wake = try next.backgroundWakeRequested(.fetch, payload: "", for: mail, now: at(10))
        guard case .publish(let event)? = wake.actions.first(where: { if case .publish = $0 { true } else { false } })
        else {
            Issue.record("no transition in \(wake.actions)")
            return
        }
        #expect(event.from == .notRunning && event.to == .background)
        #expect(event.restoration == .daemonRestart)
    }

    @Test func R2_theDaemonsStopKeepsTheStateAsDaemonRestart() throws {
        var scheduler = try self.preservedAndSuspended()
        // Expected: the stop SIGKILLs the suspended app (L5, P4); its end keeps the state as daemonRestart.
        #expect(scheduler.shutdownRequested(now: at(5)) == [.kill(mail)])
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(6)) == [
                self.ending(
                    published(mail, .suspended, .notRunning, .terminated(.shutdown), at: at(6), exit: .signaled(9)),
                    .daemonRestart,
                    kept: true
                )
            ]
        )
    }

    @Test func R3_aTerminateOrASwitcherKillDiscardsTheStoredState() throws {
        for asked in [UserAction?.none, .switcherKill] {
            var scheduler = try self.preservedAndSuspended()
            if let asked {
                #expect(try scheduler.userActionReceived(asked, for: mail, now: at(5)) == [.kill(mail)])
            } else {
                #expect(try scheduler.commandReceived(.terminate, for: mail, now: at(5)) == [.kill(mail)])
            }
            // Expected: the end discards the state (the driver removes it); the next launch restores nothing.
            #expect(
                scheduler.processExited(mail, exit: .signaled(9), now: at(6)) == [
                    self.ending(
                        published(
                            mail,
                            .suspended,
                            .notRunning,
                            .terminated(.requested),
                            at: at(6),
                            exit: .signaled(9),
                            asked: asked
                        ),
                        asked == nil ? .terminated : .switcherKill,
                        kept: false
                    )
                ]
            )
            #expect(!scheduler.hasPreservedState(mail))
            let launch = try scheduler.commandReceived(.launch, for: mail, now: at(10))
            #expect(
                launch.contains(
                    published(mail, .notRunning, .inactive, .command(.launch), at: at(10), [.didFinishLaunching])
                )
            )
        }
    }

    /// A scheduler whose app was purged with a stored state, then launched at 10 (restoring).
    func restoredLaunch() throws -> (Scheduler, [Action]) {
        var scheduler = try self.preservedAndSuspended()
        _ = scheduler.purgeRequested(now: at(5))
        _ = scheduler.processExited(mail, exit: .signaled(9), now: at(6))
        let launch = try scheduler.commandReceived(.launch, for: mail, now: at(10))
        return (scheduler, launch)
    }

    @Test func R4_aCrashDuringARestoredLaunchDiscardsTheState() throws {
        var (scheduler, _) = try self.restoredLaunch()
        // Expected: the crash before didFinishLaunching returned discards the state (no crash loop on it).
        let exit = scheduler.processExited(mail, exit: .signaled(11), now: at(12))
        #expect(
            exit == [
                self.ending(
                    published(
                        mail,
                        .inactive,
                        .notRunning,
                        .terminated(.signaled(11)),
                        at: at(12),
                        exit: .signaled(11)
                    ),
                    .crashedAfterRestore,
                    kept: false
                )
            ]
        )
        #expect(!scheduler.hasPreservedState(mail))
    }

    @Test func R4_aCrashWithinTheWindowAfterARestoredLaunchDiscardsAndOneAfterItKeeps() throws {
        // didFinishLaunching returns at 11: the window ends at 41, inclusive.
        for (crash, kept) in [(Int64(41), false), (Int64(42), true)] {
            var (scheduler, launch) = try self.restoredLaunch()
            _ = scheduler.acknowledge(.didFinishLaunching, of: mail, in: launch, now: at(11))
            #expect(scheduler.state(of: mail) == .active)
            let exit = scheduler.processExited(mail, exit: .exited(1), now: at(crash))
            #expect(
                exit == [
                    self.ending(
                        published(mail, .active, .notRunning, .terminated(.exited(1)), at: at(crash), exit: .exited(1)),
                        kept ? .crashed : .crashedAfterRestore,
                        kept: kept
                    )
                ]
            )
            #expect(scheduler.hasPreservedState(mail) == kept)
        }
    }

    @Test func R6_aStateFoundWithoutAnEndingIsADaemonKilledInThisBootOrARebootInAnother() throws {
        for (sameBoot, expected) in [(true, RunEnding.daemonKilled), (false, .reboot)] {
            var scheduler = try makeScheduler([protocolApp])
            #expect(try scheduler.preservedStateFound(for: mail, recordedEnding: nil, sameBoot: sameBoot))
            let launch = try scheduler.commandReceived(.launch, for: mail, now: at(1))
            #expect(
                launch.contains(
                    self.restoring(
                        published(mail, .notRunning, .inactive, .command(.launch), at: at(1), [.didFinishLaunching]),
                        from: expected
                    )
                )
            )
        }
        // An ending that does not restore is not kept: the driver discards the file.
        var scheduler = try makeScheduler([protocolApp])
        #expect(try !scheduler.preservedStateFound(for: mail, recordedEnding: .switcherKill, sameBoot: true))
        #expect(!scheduler.hasPreservedState(mail))
    }

    @Test func R7_aDiscardedStateIsNotRestored() throws {
        var scheduler = try self.preservedAndSuspended()
        try scheduler.stateDiscarded(for: mail)
        _ = scheduler.purgeRequested(now: at(5))
        // Expected: the end says nothing of a state (none is stored), and the launch restores nothing.
        #expect(
            scheduler.processExited(mail, exit: .signaled(9), now: at(6)) == [
                published(mail, .suspended, .notRunning, .terminated(.memoryPressure), at: at(6), exit: .signaled(9))
            ]
        )
        #expect(scheduler.status(of: mail, now: at(6))?.lastRunEnding == .purged)
        let launch = try scheduler.commandReceived(.launch, for: mail, now: at(10))
        #expect(
            launch.contains(
                published(mail, .notRunning, .inactive, .command(.launch), at: at(10), [.didFinishLaunching])
            )
        )
    }
}
