import Foundation
@_spi(Processes) import Runway
import RunwayConfig
@_spi(Driver) @_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses

// Where the daemon registers configured apps and reads what the process driver knows about them.

/// Registers one configured app in `notRunning`: a process app (`ProgramArguments`) with the process driver, an
/// embedded one (no `ProgramArguments`) as a stand-in object in the daemon.
func registerApp(_ app: ConfiguredApp, on scheduler: RunwayScheduler) throws(SchedulerError) {
    if app.descriptor.isProcess {
        try scheduler.register(process: app.descriptor)
    } else {
        try scheduler.register(app.descriptor, delegate: StandInApp())
    }
}

/// Registers configured apps in `notRunning`, in the order given: process apps in slices of
/// `RunwayScheduler.registrationSliceLimit` per hop to the loop, not one hop each (at 10,000 apps the hops cost more
/// than the registrations), embedded ones one by one. One refusal does not stop the others.
///
/// - Returns: The refusals by app; empty when every app was registered.
func registerApps(_ apps: [ConfiguredApp], on scheduler: RunwayScheduler) -> [AppID: SchedulerError] {
    var refusals: [AppID: SchedulerError] = [:]
    // Runs of process apps go together, so that the apps are registered in the order given.
    var processes: [AppDescriptor] = []
    for app in apps {
        if app.descriptor.isProcess {
            processes.append(app.descriptor)
            continue
        }
        refusals.merge(scheduler.register(processes: processes), uniquingKeysWith: { first, _ in first })
        processes.removeAll()
        do throws(SchedulerError) {
            try registerApp(app, on: scheduler)
        } catch {
            refusals[app.descriptor.id] = error
        }
    }
    refusals.merge(scheduler.register(processes: processes), uniquingKeysWith: { first, _ in first })
    return refusals
}

/// Printed at startup when some apps are embedded stand-ins; nil when none is.
func standInNote(_ apps: [ConfiguredApp]) -> String? {
    let count = apps.filter { !$0.descriptor.isProcess }.count
    guard count > 0 else { return nil }
    return "\(count) embedded app(s) (no ProgramArguments) run as stand-ins inside the daemon: they return from every "
        + "message at once and hold no task of their own"
}

/// How the daemon starts process apps: relative programs against the configuration directory, bare names beside
/// the `runway` executable first (the sample apps are built there), where and how often memory pressure is read
/// from `Runway.plist` (P3; its thresholds go to the scheduler: `schedulerSettings(for:)`), and the state file
/// a restarted daemon reads (`ProcessOptions.stateFile`; nil keeps none).
func processOptions(for configuration: RunwayConfiguration, stateFile: String? = nil) -> ProcessOptions {
    // /proc/self/exe, not argv[0]: `runway` may have been found through PATH.
    let executable = URL(
        fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? "runway"
    ).resolvingSymlinksInPath()
    let daemon = configuration.daemon
    let memory: MemoryPressureOptions?
    switch daemon.memoryPressureSource {
    case .off:
        memory = nil
    case .psi:
        memory = MemoryPressureOptions(
            source: .psi(path: "/proc/pressure/memory"),
            pollInterval: daemon.memoryPollInterval
        )
    case .rss:
        memory = daemon.rssCeilingBytes.map {
            MemoryPressureOptions(source: .rss(ceilingBytes: $0), pollInterval: daemon.memoryPollInterval)
        }
    }
    var options = ProcessOptions(
        baseDirectory: configuration.directory,
        searchDirectories: [executable.deletingLastPathComponent().path],
        suspensionMechanism: daemon.suspensionMechanism,
        memoryPressure: memory
    )
    options.stateFile = stateFile
    options.appLogLineLimit = daemon.appLogLineLimit
    options.appLogByteLimit = daemon.appLogByteLimit
    // Every client the daemon accepts, and its own files beside them, must find a descriptor at the limit.
    options.descriptorReserve = daemon.controlClientLimit + daemon.operations.metricsConnectionLimit + 64
    return options
}

/// The scheduler settings of `Runway.plist` with its memory pressure thresholds (`MemoryWarningPressure`,
/// `MemoryCriticalPressure`, read into `DaemonSettings`) put where the core decides P3. The loader has validated
/// them (0 ... 100, warning not above critical).
func schedulerSettings(for configuration: RunwayConfiguration) -> SchedulerSettings {
    var settings = configuration.settings
    settings.memoryPressure = MemoryPressurePolicy(
        warningPercent: configuration.daemon.memoryWarningPressure,
        criticalPercent: configuration.daemon.memoryCriticalPressure
    )
    return settings
}

/// pid and suspension details per process app; of the listed `apps` only when given (O(apps listed)).
func processRows(of scheduler: RunwayScheduler, apps: [AppID]? = nil) -> [AppID: ProcessRow] {
    (apps.map { scheduler.processes(of: $0) } ?? scheduler.processes()).mapValues {
        ProcessRow(
            pid: $0.pid,
            mechanism: $0.mechanism?.rawValue,
            suspensionConfirmed: $0.suspensionConfirmed,
            killRefused: $0.killRefused,
            containment: $0.containment
        )
    }
}

/// An embedded app that returns from every lifecycle message at once (the defaults of `RunwayAppDelegate`): it
/// holds no background task of its own, so it is suspended as soon as it reaches the background unless a scenario
/// or an operator holds a task for it.
final class StandInApp: RunwayAppDelegate {}
