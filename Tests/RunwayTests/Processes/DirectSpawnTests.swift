import CLibUV
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

/// Children straight into place: `runway_spawn` starts the program itself (clone3 into the app's cgroup, with a
/// pidfd), no `/bin/sh` in between; an exec failure names the step and errno.
@Suite("Process apps: children straight into place", .serialized)
struct DirectSpawnTests {
    static let mechanisms = ProcessTestSupport.mechanisms

    static func resolved(_ path: String) -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: path))
            .map { URL(fileURLWithPath: $0, relativeTo: URL(fileURLWithPath: path)).resolvingSymlinksInPath().path }
            ?? URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    @Test(
        "the child is in its cgroup from its first instruction (cp of /proc/self/cgroup as its first act)",
        .enabled(if: ProcessTestSupport.freezerAvailable)
    )
    func childStartsInItsCgroup() async throws {
        let output = TemporaryPaths.program()
        defer { unlink(output) }
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.freezer)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.spawn.cgroup"
        try scheduler.register(
            process: AppDescriptor(
                id: app,
                kind: .process(ProcessSpec(arguments: ["/bin/cp", "/proc/self/cgroup", output]))
            )
        )
        try scheduler.perform(.launch, on: app)
        let gone = await watcher.first { $0.app == app && $0.to == .notRunning }
        #expect(gone?.cause == .terminated(.exited(0)), "\(String(describing: gone))")
        let cgroupPath = try #require(scheduler.processes()[app]?.cgroupPath)
        let text = try String(contentsOfFile: output, encoding: .utf8)
        // The cgroup v2 line, `0::/PATH` relative to the hierarchy's mount (v1 lines too on a hybrid host). A root
        // daemon's app has a cgroup namespace of its own, rooted at the cgroup it was in when it made it, before
        // its exec: `0::/` there.
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("0::/") }, "\(text)")
        if geteuid() == 0 {
            #expect(line == "0::/", "cp ran in \(line) of its namespace, not at its root (the app's cgroup)")
        } else {
            #expect(
                cgroupPath.hasSuffix(String(line.dropFirst(3))),
                "cp ran in \(line), the app's cgroup is \(cgroupPath)"
            )
        }
        await scheduler.shutdown()
    }

    @Test(
        "no /bin/sh in between: the child's /proc/PID/exe is the program, its parent this process",
        arguments: mechanisms
    )
    func noShellInBetween(mechanism: SuspensionMechanism) async throws {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let app: AppID = "com.test.spawn.direct"
        try scheduler.register(
            process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
        )
        try scheduler.perform(.launch, on: app)
        // At once: the spawn returns only after the program's exec, so there is no moment with a shell to see.
        let pid = try #require(scheduler.processes()[app]?.pid)
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        #expect(exe == Self.resolved("/bin/sleep"), "the child runs \(exe)")
        let stat = try #require(ProcFS.stat(pid))
        #expect(stat.parent == getpid())
        #expect(stat.session == pid, "the child leads a session of its own")
        // The spawn returns at the exec's point of no return (the child's memory replaced, as with posix_spawn); the
        // kernel writes the new argument area a moment later.
        var argv: [String] = []
        let deadline = ContinuousClock.now + .seconds(5)
        while argv.isEmpty && ContinuousClock.now < deadline {
            argv = (SystemFiles.read("/proc/\(pid)/cmdline") ?? "").split(separator: "\0").map(String.init)
            if argv.isEmpty { usleep(1_000) }
        }
        #expect(argv == ["/bin/sleep", "1000"])
        await scheduler.shutdown()
    }

    @Test(
        "an exec failure reaches spawnFailed with the call and errno (ENOEXEC; ENOENT for chdir)",
        arguments: mechanisms
    )
    func execFailureNamesErrno(mechanism: SuspensionMechanism) async throws {
        let garbage = TemporaryPaths.program()
        defer { unlink(garbage) }
        try Data([0x00, 0x01, 0x02, 0x7f, 0x45]).write(to: URL(fileURLWithPath: garbage))
        chmod(garbage, 0o755)
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let watcher = TransitionWatcher(scheduler)
        let cases: [(AppID, ProcessSpec, String)] = [
            ("com.test.spawn.noexec", ProcessSpec(arguments: [garbage]), "execve failed: Exec format error"),
            (
                "com.test.spawn.nodir",
                ProcessSpec(arguments: ["/bin/true"], workingDirectory: "/nonexistent/runway-dir"),
                "chdir failed: No such file or directory"
            ),
        ]
        for (app, spec, expected) in cases {
            try scheduler.register(process: AppDescriptor(id: app, kind: .process(spec)))
            try scheduler.perform(.launch, on: app)
            let gone = await watcher.first { $0.app == app && $0.to == .notRunning }
            guard case .terminated(.spawnFailed(let message)) = gone?.cause else {
                Issue.record("expected spawnFailed for \(app), got \(String(describing: gone))")
                continue
            }
            #expect(message.contains(expected), "\(message)")
        }
        // The failed children were reaped by the spawn: no zombie child of this process is left.
        let zombies = ProcessTree().children(of: getpid()).filter { ProcFS.stat($0)?.state == "Z" }
        #expect(zombies.isEmpty, "zombies: \(zombies)")
        await scheduler.shutdown()
    }

    @Test("an exit is seen through the pidfd with no SIGCHLD handler in the process (SIG_DFL)")
    func exitIsSeenWithoutASIGCHLDHandler() throws {
        let loop = try DirectChild.makeLoop()
        let recorder = ExitRecorder()
        var cases: [(String, ProcessExit)] = [("exit 7", .exited(7)), ("kill -TERM $$", .signaled(SIGTERM))]
        // Whatever handler libuv or a zombie sweep installed is set aside: SIGCHLD does nothing while this runs.
        var previous = sigaction()
        var defaultAction = sigaction()
        defaultAction.__sigaction_handler.sa_handler = SIG_DFL
        sigaction(SIGCHLD, &defaultAction, &previous)
        defer { sigaction(SIGCHLD, &previous, nil) }
        while let (script, expected) = cases.first {
            cases.removeFirst()
            let child = ChildProcess(app: "com.test.spawn.pidfd", loop: loop, options: ProcessOptions())
            child.delegate = recorder
            try DirectChild.start(child, ["/bin/sh", "-c", script])
            // Bounded: without the pidfd nothing would ever report this exit.
            DirectChild.run(loop) { recorder.exit != nil }
            #expect(recorder.exit == expected, "\(script)")
            #expect(ProcFS.stat(child.pid) == nil, "reaped: no zombie left")
            guard recorder.exit != nil else { return }
            recorder.exit = nil
            child.closeOutput()
        }
        DirectChild.close(loop)
    }

    @Test(
        "an execve that fails with EACCES (a script whose interpreter is a directory) is spawnFailed",
        arguments: DirectSpawnTests.mechanisms
    )
    func execveEACCESIsReported(mechanism: SuspensionMechanism) async throws {
        let script = TemporaryPaths.program()
        defer { unlink(script) }
        try "#!/tmp\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let watcher = TransitionWatcher(scheduler)
        let app: AppID = "com.test.eacces"
        try scheduler.register(process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: [script]))))
        try scheduler.perform(.launch, on: app)
        let gone = await watcher.first { $0.app == app && $0.to == .notRunning }
        guard case .terminated(.spawnFailed(let message)) = gone?.cause else {
            Issue.record("expected spawnFailed, got \(String(describing: gone))")
            await scheduler.shutdown()
            return
        }
        #expect(message.contains("execve failed: Permission denied"), "\(message)")
        await scheduler.shutdown()
    }
}

/// Records the exit a `ChildProcess` reports; ignores the rest.
final class ExitRecorder: ChildProcessDelegate {
    var exit: ProcessExit?
    func child(_ child: ChildProcess, printed line: String, isError: Bool, truncated: Bool) {}
    func child(_ child: ChildProcess, throttledOutput isError: Bool, pauses: Int) {}
    func child(_ child: ChildProcess, sent frame: LineFramer.Frame) {}
    func childClosedChannel(_ child: ChildProcess, status: Int32) {}
    func child(_ child: ChildProcess, exited exit: ProcessExit) { self.exit = exit }
}
