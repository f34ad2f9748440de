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

/// The main process's stop as its pidfd's wait reports it, when someone else interferes: a SIGCONT, a host's own
/// wait, a zombie leader, a tracer; and SA_NOCLDSTOP on SIGCHLD across supervisors.
@Suite("Process apps: the main process's stop report under interference", .serialized)
struct MainStopReportTests {
    /// One signal-mode `sleep 1000` app, launched, with its main process's identity read.
    static func launchedOne(_ name: String) async throws -> (RunwayScheduler, AppID, Int32) {
        let (scheduler, apps) = try LaunchedApps.launched(1, .signal)
        try await LaunchedApps.waitForIdentities(scheduler, apps)
        let pid = try #require(scheduler.processes()[apps[0]]?.pid)
        return (scheduler, apps[0], pid)
    }

    @Test("P1: SIGCONT from someone else between the SIGSTOP and the look: the suspension is not confirmed")
    func P1_continuedBeforeTheLookIsNotConfirmed() async throws {
        let (scheduler, app, pid) = try await Self.launchedOne("sigcont")
        // On the loop thread, so that no confirmation tick runs between the signal and the SIGCONT.
        let fromWait: Bool? = scheduler.bridge.sync { driver in
            try? driver.userAction(.home, for: app)
            _ = runway_kill(pid, SIGCONT)
            let supervisor = driver.processSupervisor()
            return supervisor.apps[app].map { supervisor.mainStatFromWait($0, running: false) != nil } ?? true
        }
        #expect(fromWait == false, "the wait does not report a stop that SIGCONT ended")
        try await Task.sleep(for: .milliseconds(300))
        #expect(scheduler.processes()[app]?.suspensionConfirmed != true, "a suspension that is not there")
        #expect(ProcFS.stat(pid)?.state != "T")
        await scheduler.shutdown()
    }

    @Test("P1: a host that consumes the stop report (waitid WSTOPPED without WNOWAIT): confirmed through /proc")
    func P1_consumedStopReportFallsBackToProc() async throws {
        let (scheduler, app, pid) = try await Self.launchedOne("consumed")
        let report: ChildProcess.WaitReport? = scheduler.bridge.sync { driver in
            try? driver.userAction(.home, for: app)
            let deadline = ContinuousClock.now + .seconds(5)
            while ProcFS.stat(pid)?.state != "T" && ContinuousClock.now < deadline { usleep(500) }
            var info = siginfo_t()
            _ = waitid(P_PID, id_t(pid), &info, WSTOPPED | WNOHANG)  // The host's own wait, consuming the report.
            return driver.processSupervisor().apps[app]?.child?.waitReport ?? .unavailable
        }
        #expect(report == .neither, "the host's wait consumed the stop report")
        #expect(ProcFS.stat(pid)?.state == "T")
        #expect(await eventually { scheduler.processes()[app]?.suspensionConfirmed == true }, "read from /proc")
        await scheduler.shutdown()
    }

    @Test("P1: a main whose leader thread exited (a zombie leader, a live thread): read, stopped, confirmed")
    func P1_zombieLeaderWithALiveThread() async throws {
        let app = AppID("com.test.zombieleader")
        // The second thread starts a child, then the main thread exits alone (SYS_exit, not exit_group).
        let script =
            "import ctypes, subprocess, threading, time\n"
            + "def run():\n"
            + "    subprocess.Popen(['/bin/sleep', '1000'])\n"
            + "    time.sleep(1000)\n"
            + "threading.Thread(target=run).start()\n"
            + "time.sleep(0.05)\n"
            + "ctypes.CDLL(None).syscall(60, 0)\n"
        let (scheduler, main) = try LaunchedApps.launchedPython(app, script)
        try await LaunchedApps.waitForIdentities(scheduler, [app])
        var child: Int32?
        let deadline = ContinuousClock.now + .seconds(10)
        while (child == nil || ProcFS.stat(main)?.state != "Z") && ContinuousClock.now < deadline {
            child = ProcessTree().children(of: main, threads: nil).first
            try await Task.sleep(for: .milliseconds(5))
        }
        let sleeper = try #require(child)
        #expect(ProcFS.stat(main)?.state == "Z" && ProcFS.stat(main)?.threads == 2, "a zombie leader")
        let stat: ProcFS.Stat?? = scheduler.bridge.sync { driver in
            let supervisor = driver.processSupervisor()
            return supervisor.apps[app].flatMap { supervisor.mainStatFromWait($0, running: true) }
        }
        #expect(stat??.state == "R" && stat??.threads == 2, "running for the wait, two threads")
        #expect(scheduler.perform(UserAction.home.command, onEach: [app]).isEmpty)
        try await LaunchedApps.waitUntilConfirmed(scheduler, 1)
        #expect(ProcFS.stat(sleeper)?.state == "T", "the live thread's child is stopped")
        let threads = SystemFiles.entries(of: "/proc/\(main)/task").compactMap { Int32($0) }.filter { $0 != main }
        let states = threads.compactMap { SystemFiles.read("/proc/\(main)/task/\($0)/stat") }
        #expect(states.count == 1 && states.allSatisfy { $0.contains(") T ") }, "the live thread is stopped: \(states)")
        #expect(scheduler.perform(.terminate, onEach: [app]).isEmpty)
        #expect(await eventually { ProcessTestSupport.isGone(sleeper) }, "killed with its app")
        await scheduler.shutdown()
    }

    @Test("SA_NOCLDSTOP holds with two supervisors, when one closes, and for a supervisor made after both")
    func noStopSignalsAcrossSupervisors() async throws {
        let (first, _) = try LaunchedApps.launched(1, .signal)
        #expect(runway_sigchld_skips_stops() == 1)
        let (second, _) = try LaunchedApps.launched(1, .signal)
        #expect(runway_sigchld_skips_stops() == 1)
        await first.shutdown()
        #expect(runway_sigchld_skips_stops() == 1, "the other supervisor's watcher keeps libuv's handler and the flag")
        await second.shutdown()
        let (third, apps) = try LaunchedApps.launched(1, .signal)
        #expect(runway_sigchld_skips_stops() == 1, "libuv installed its handler again; the flag is added again")
        #expect(third.perform(UserAction.home.command, onEach: apps).isEmpty)
        try await LaunchedApps.waitUntilConfirmed(third, 1)
        await third.shutdown()
    }

    /// A tracer (a debugger of the daemon's uid) that seizes `pid`, delivers its SIGSTOP and then resumes it from the
    /// group-stop with PTRACE_CONT: the stop stays in effect for the wait while the process runs.
    static let resumingTracer =
        "import ctypes, os, sys\n"
        + "libc = ctypes.CDLL(None)\n"
        + "libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]\n"
        + "pid = int(sys.argv[1])\n"
        + "if libc.ptrace(0x4206, pid, None, None) != 0: sys.exit(1)\n"
        + "print('seized', flush=True)\n"
        + "while True:\n"
        + "    _, status = os.waitpid(pid, 0x40000000)\n"
        + "    if os.WIFEXITED(status) or os.WIFSIGNALED(status): break\n"
        + "    libc.ptrace(7, pid, None, None if status >> 16 == 128 else ctypes.c_void_p(os.WSTOPSIG(status)))\n"

    @Test("P1: a tracer resumes the main process from its group-stop: the wait still reports it stopped")
    func P1_tracerResumedMainIsNotConfirmed() async throws {
        let (scheduler, app, pid) = try await Self.launchedOne("traced")
        let tracer = Process()
        let output = Pipe()
        tracer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tracer.arguments = ["python3", "-c", Self.resumingTracer, "\(pid)"]
        tracer.standardOutput = output
        try tracer.run()
        defer { tracer.terminate() }
        #expect(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("seized"))
        // On the loop thread: no confirmation look before the tracer has resumed the main process.
        let resumed: Bool? = scheduler.bridge.sync { driver in
            try? driver.userAction(.home, for: app)
            let child = driver.processSupervisor().apps[app]?.child
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                if child?.waitReport == .stopped, let state = ProcFS.stat(pid)?.state, !"Tt".contains(state) {
                    return true
                }
                usleep(500)
            }
            return false
        }
        try #require(resumed == true, "the tracer resumed the main process while the wait reports it stopped")
        try await Task.sleep(for: .milliseconds(300))
        withKnownIssue("the wait's stop is taken for the main thread's, which a tracer may have resumed; left open") {
            #expect(scheduler.processes()[app]?.suspensionConfirmed != true, "confirmed while the main process runs")
        }
        await scheduler.shutdown()
    }
}
