import CRunwayProcess
import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// An app's main process's state is read from the kernel's wait on its pidfd, and its thread count from
/// the link count of `/proc/PID/task`, instead of `/proc/PID/stat`. With SA_NOCLDSTOP, stopping and continuing a
/// child raises no SIGCHLD here, so suspensions do not wake the zombie sweep.
@Suite("The main process seen through its pidfd's wait")
struct MainStateByWaitTests {
    @Test("The wait reports a child neither, then stopped, then continued after SIGCONT, then exited until reaped")
    func waitReportFollowsTheChild() throws {
        let loop = try DirectChild.makeLoop()
        let child = ChildProcess(app: "com.test.waitreport", loop: loop, options: ProcessOptions())
        try DirectChild.start(child, ["/bin/sleep", "1000"])
        defer { DirectChild.kill(child, closing: loop) }
        #expect(child.waitReport == .neither)
        try LaunchedApps.stopAndWait(child.pid)
        #expect(child.waitReport == .stopped)
        #expect(child.waitReport == .stopped, "the look does not consume the report")
        #expect(runway_kill(child.pid, SIGCONT) == 0)
        #expect(child.waitReport == .continued)
        #expect(runway_kill(child.pid, SIGKILL) == 0)
        let deadline = ContinuousClock.now + .seconds(10)
        while ProcFS.stat(child.pid)?.state != "Z" && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(child.waitReport == .exited, "a zombie the loop has not reaped yet")
        DirectChild.run(loop) { child.hasExited }
        #expect(child.waitReport == .unavailable)
    }

    @Test("The thread count from /proc/PID/task's links is the one /proc/PID/stat shows, for one and for three threads")
    func threadCountFromLinks() throws {
        #expect(runway_proc_thread_count(1 << 30) < 0, "no such process")
        let script =
            "import threading, time\n"
            + "[threading.Thread(target=time.sleep, args=(1000,), daemon=True).start() for _ in range(2)]\n"
            + "time.sleep(1000)\n"
        for (arguments, threads) in [
            (["/bin/sleep", "1000"], Int32(1)), (["/usr/bin/env", "python3", "-c", script], 3),
        ] {
            let loop = try DirectChild.makeLoop()
            let child = ChildProcess(app: "com.test.threads", loop: loop, options: ProcessOptions())
            try DirectChild.start(child, arguments)
            let deadline = ContinuousClock.now + .seconds(10)
            while ProcFS.stat(child.pid)?.threads != threads && ContinuousClock.now < deadline { usleep(2_000) }
            #expect(ProcFS.stat(child.pid)?.threads == threads)
            #expect(runway_proc_thread_count(child.pid) == threads, "\(arguments[0])")
            DirectChild.kill(child, closing: loop)
        }
    }

    @Test("P1: a batch of suspensions and a batch of terminates take each main process's state from the wait")
    func P1_suspensionAndTerminateUseTheWait() async throws {
        let (scheduler, apps) = try LaunchedApps.launched(4, .signal)
        func byWait() -> Int { scheduler.bridge.sync { $0.processSupervisor().scanCounts.mainStatsByWait } ?? -1 }
        try await LaunchedApps.waitForIdentities(scheduler, apps)
        let start = byWait()
        #expect(scheduler.perform(UserAction.home.command, onEach: apps).isEmpty)
        try await LaunchedApps.waitUntilConfirmed(scheduler, apps.count)
        let suspended = byWait()
        #expect(suspended - start >= apps.count, "one reading per confirmed suspension at least")
        for status in scheduler.processes().values {
            #expect(ProcFS.stat(try #require(status.pid))?.state == "T")
        }
        #expect(scheduler.perform(UserAction.summon.command, onEach: apps).isEmpty)
        try await LaunchedApps.waitUntilConfirmed(scheduler, apps.count)
        let resumed = byWait()
        func restLooks() -> Int {
            scheduler.bridge.sync { $0.processSupervisor().scanCounts.terminationRestLooks } ?? -1
        }
        let looksBefore = restLooks()
        #expect(scheduler.perform(.terminate, onEach: apps).isEmpty)
        #expect(byWait() - resumed == apps.count, "the scan before each SIGTERM")
        #expect(await eventually { scheduler.status().allSatisfy { $0.state == .notRunning } })
        #expect(restLooks() == looksBefore, "signal mode has no second step: its scan came first")
        await scheduler.shutdown()
    }

    @Test("P1: what a second thread of the main process started in a session of its own is found and stopped")
    func P1_secondThreadsEscapeeIsStopped() async throws {
        let app = AppID("com.test.threadescapee")
        // The escapee is a child of the second thread (listed in that thread's `children` only), in a new session.
        let script =
            "import subprocess, threading, time\n"
            + "def run():\n"
            + "    subprocess.Popen(['/bin/sleep', '1000'], start_new_session=True)\n"
            + "    time.sleep(1000)\n"
            + "threading.Thread(target=run, daemon=True).start()\n"
            + "time.sleep(1000)\n"
        let (scheduler, main) = try LaunchedApps.launchedPython(app, script)
        var escapee: Int32?
        let deadline = ContinuousClock.now + .seconds(10)
        while escapee == nil && ContinuousClock.now < deadline {
            escapee = ProcessTree().children(of: main, threads: nil).first { pid in
                guard let stat = ProcFS.stat(pid) else { return false }
                return stat.session != main && stat.session == pid
            }
            if escapee == nil { try await Task.sleep(for: .milliseconds(5)) }
        }
        let pid = try #require(escapee, "the second thread started its child")
        #expect(ProcFS.stat(main)?.threads == 2)
        #expect(scheduler.perform(UserAction.home.command, onEach: [app]).isEmpty)
        try await LaunchedApps.waitUntilConfirmed(scheduler, 1)
        #expect(ProcFS.stat(pid)?.state == "T", "the escapee of the second thread is stopped")
        #expect(scheduler.perform(.terminate, onEach: [app]).isEmpty)
        let gone = ContinuousClock.now + .seconds(10)
        while !ProcessTestSupport.isGone(pid) && ContinuousClock.now < gone {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(ProcessTestSupport.isGone(pid), "killed with its app")
        await scheduler.shutdown()
    }

    @Test("with the zombie sweep watching SIGCHLD, stops and continues raise none")
    func stopsRaiseNoChildSignal() async throws {
        let (scheduler, apps) = try LaunchedApps.launched(4, .signal)
        #expect(runway_sigchld_skips_stops() == 1, "SIGCHLD's handler has SA_NOCLDSTOP")
        func wakeups() -> Int { scheduler.bridge.sync { $0.processSupervisor().scanCounts.childSignals } ?? -1 }
        try await Task.sleep(for: .milliseconds(50))
        let before = wakeups()
        #expect(scheduler.perform(UserAction.home.command, onEach: apps).isEmpty)
        try await LaunchedApps.waitUntilConfirmed(scheduler, apps.count)
        #expect(scheduler.perform(UserAction.summon.command, onEach: apps).isEmpty)
        try await LaunchedApps.waitUntilConfirmed(scheduler, apps.count)
        try await Task.sleep(for: .milliseconds(50))
        #expect(wakeups() == before, "no SIGCHLD for 4 stops and 4 continues")
        #expect(scheduler.perform(.terminate, onEach: apps).isEmpty)
        let deadline = ContinuousClock.now + .seconds(10)
        while wakeups() == before && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(wakeups() > before, "exits still do")
        await scheduler.shutdown()
    }
}
