import Foundation
import Runway
import RunwayConfig
@_spi(Driver) import RunwayCore

// RunAtLoad (Docs/Configuration.md) and the run history's setup, for `runway run` (Daemon.swift) and reloads
// (ConfigReload.swift).

/// Launches every app of `apps` whose plist sets `RunAtLoad`, into its launch state (`AppDescriptor.launchCommand`:
/// the background for apps with `UIBackgroundModes`, else the foreground). A refusal (the daemon is stopping) is
/// noted on the timeline; a failed spawn shows as the app's transition to `notRunning` (`spawnFailed`).
///
/// The launches go in slices of `RunwayScheduler.commandSliceLimit` per hop to the loop (one loop turn each), not one
/// hop per app: the loop's deadlines run between slices, and the per-turn work of a launch is paid once per slice.
func autostart(_ apps: [ConfiguredApp], on scheduler: RunwayScheduler, timeline: Timeline) {
    let launches = apps.filter(\.descriptor.runAtLoad).map {
        (app: $0.descriptor.id, command: $0.descriptor.launchCommand)
    }
    var start = 0
    while start < launches.count {
        let slice = Array(launches[start..<min(start + RunwayScheduler.commandSliceLimit, launches.count)])
        start += slice.count
        for launch in slice { timeline.note(launch.app, "RunAtLoad: \(launch.command)") }
        let refusals = scheduler.perform(slice, sliceLimit: slice.count)
        for launch in slice {
            if let error = refusals[launch.app] { timeline.note(launch.app, "RunAtLoad refused: \(error)") }
        }
    }
}

/// The daemon's run history: read from the state directory (a bad file is reported and set aside, never fatal;
/// a directory another user may write in is not used at all), fed by every transition from now on.
func startRunHistory(
    configuration: RunwayConfiguration,
    scheduler: RunwayScheduler,
    stateDirectory: String,
    socket: String
) -> RunHistory {
    let candidate = RunHistoryFile(
        path: StateDirectory.historyFile(directory: stateDirectory, socket: socket),
        readByteLimit: RunHistoryFile.readByteLimit(
            apps: configuration.apps.count,
            runsPerApp: configuration.daemon.runHistoryLimit
        )
    )
    var file: RunHistoryFile? = candidate
    var runs: [String: [RunRecord]] = [:]
    // A directory another user may write in is refused, as for the process state file: that user could plant
    // the history `status` shows. The history is then kept in memory only.
    if let problem = candidate.directoryProblem() {
        printError("warning: run history kept in memory only, neither read nor saved: \(problem)")
        file = nil
    } else {
        switch candidate.read() {
        case .success(let saved):
            // Apps no longer configured are dropped: the file stays bounded by the configured apps.
            let configured = Set(configuration.apps.map(\.descriptor.id.bundleIdentifier))
            runs = saved.filter { configured.contains($0.key) }
        case .failure(let error):
            // Set aside, not removed: an operator can look at it. A symbolic link is renamed, never followed.
            let aside = candidate.path + ".bad"
            _ = rename(candidate.path, aside)
            printError("warning: run history not read, starting empty (the file was moved to \(aside)): \(error)")
        }
    }
    let history = RunHistory(
        limit: configuration.daemon.runHistoryLimit,
        file: file,
        clock: WallClock(scheduler: scheduler),
        runs: runs,
        report: { problem in printError("warning: run history not saved: \(problem)") }
    )
    scheduler.observeTransitions { event in history.transitioned(event) }
    return history
}
