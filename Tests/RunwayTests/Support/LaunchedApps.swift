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

/// Schedulers with process apps launched, and waits for what the supervisor has seen of them.
enum LaunchedApps {
    /// A `sleep` freezer app launched once and terminated: the scheduler and the app's cgroup, empty again.
    static func freezerAppRanOnce(_ app: AppID) async throws -> (scheduler: RunwayScheduler, cgroup: String) {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.freezer)
        )
        let watcher = TransitionWatcher(scheduler)
        try scheduler.register(
            process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
        )
        try scheduler.perform(.launch, on: app)
        let path = try #require(scheduler.processes()[app]?.cgroupPath)
        try scheduler.perform(.terminate, on: app)
        #expect(await watcher.first { $0.app == app && $0.to == .notRunning } != nil)
        #expect(await eventually { ProcessTestSupport.cgroupEvents(path).contains("populated 0") })
        return (scheduler, path)
    }

    /// `count` `sleep 1000` apps in `mechanism`, launched; the scheduler and their identifiers.
    static func launched(_ count: Int, _ mechanism: SuspensionMechanism) throws -> (RunwayScheduler, [AppID]) {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(mechanism)
        )
        let apps = try Self.registerSleepers(scheduler, "com.test.sleeper", count)
        #expect(scheduler.perform(.launch, onEach: apps).isEmpty)
        return (scheduler, apps)
    }

    /// Registers `count` apps `<prefix>.0`, `<prefix>.1`, ... each running `/bin/sleep 1000`; returns their ids.
    static func registerSleepers(_ scheduler: RunwayScheduler, _ prefix: String, _ count: Int) throws -> [AppID] {
        let apps = (0..<count).map { AppID("\(prefix).\($0)") }
        for app in apps {
            try scheduler.register(
                process: AppDescriptor(id: app, kind: .process(ProcessSpec(arguments: ["/bin/sleep", "1000"])))
            )
        }
        return apps
    }

    /// A scheduler in signal mode with one app, `python3 -c script`, launched; and its main process's pid.
    static func launchedPython(_ app: AppID, _ script: String) throws -> (RunwayScheduler, Int32) {
        let scheduler = try RunwayScheduler(
            settings: shortSettings,
            processOptions: ProcessTestSupport.options(.signal)
        )
        try scheduler.register(
            process: AppDescriptor(
                id: app,
                kind: .process(ProcessSpec(arguments: ["/usr/bin/env", "python3", "-c", script]))
            )
        )
        #expect(scheduler.perform(.launch, onEach: [app]).isEmpty)
        return (scheduler, try #require(scheduler.processes()[app]?.pid))
    }

    /// Waits until every app's main process is tracked with its start time (the tick after the launch).
    static func waitForIdentities(_ scheduler: RunwayScheduler, _ apps: [AppID]) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        func resolved() -> Bool {
            scheduler.bridge.sync { driver in
                let supervisor = driver.processSupervisor()
                return apps.allSatisfy { app in
                    guard let managed = supervisor.apps[app], let child = managed.child else { return false }
                    return managed.tracked.contains { $0.pid == child.pid }
                }
            } ?? false
        }
        while !resolved() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        try #require(resolved())
    }

    /// SIGSTOP to `pid`, then waits until `/proc` shows it stopped.
    static func stopAndWait(_ pid: Int32) throws {
        #expect(runway_kill(pid, SIGSTOP) == 0)
        let deadline = ContinuousClock.now + .seconds(10)
        while ProcFS.stat(pid)?.state != "T" && ContinuousClock.now < deadline { usleep(1_000) }
        try #require(ProcFS.stat(pid)?.state == "T")
    }

    /// Waits until `count` apps' suspensions are confirmed.
    static func waitUntilConfirmed(_ scheduler: RunwayScheduler, _ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while scheduler.processes().values.filter(\.suspensionConfirmed).count < count
            && ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(2))
        }
        try #require(scheduler.processes().values.filter(\.suspensionConfirmed).count == count)
    }
}
