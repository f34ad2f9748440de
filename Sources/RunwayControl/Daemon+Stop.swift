import Foundation

// How `runway run` learns that it is to stop: a signal or the end of its scenario (P4), out of Daemon.swift to keep
// it short.

extension Daemon {
    /// Why the daemon stops, and the scenario steps that failed.
    struct Outcome: Sendable {
        var reason: String
        var failures: [String]
    }

    /// Returns when a stop signal arrives or the scenario ends; SIGHUP reloads on the way.
    static func waitForStop(
        scenario: ScenarioPlayer?,
        signals: AsyncStream<Int32>,
        state: DaemonState,
        timeline: Timeline
    ) async -> Outcome {
        await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                for await signal in signals {
                    if signal == SIGHUP {
                        // Not awaited: a reload never delays the handling of a later SIGTERM (P4). Reloads are
                        // serialised by `state`, and none applies anything once the stop has begun.
                        timeline.note(nil, "SIGHUP: reloading the configuration")
                        Task { _ = await state.reload(dryRun: false, timeline: timeline) }
                        continue
                    }
                    return Outcome(reason: signal == SIGINT ? "SIGINT" : "SIGTERM", failures: [])
                }
                return Outcome(reason: "signals closed", failures: [])
            }
            if let scenario {
                group.addTask {
                    let failures = await scenario.play()
                    return Outcome(reason: "scenario done", failures: failures)
                }
            }
            let first = await group.next() ?? Outcome(reason: "stopped", failures: [])
            group.cancelAll()
            return first
        }
    }
}
