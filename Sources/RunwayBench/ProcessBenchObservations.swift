import RunwayCore
import RunwayLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What `runway bench --processes` observed, per app, on the scheduler loop's clock. Written on the loop thread
/// (transitions, messages, confirmations) under `ProcessBenchRecorder`'s lock; analysed once the run is over.
package struct ProcessBenchObservations: Sendable {
    /// Background entry per app: the instant its budget started (B3).
    package var entered: [Instant?]
    /// The core's suspension of the app (the transition's instant) and its cause.
    package var suspended: [(at: Instant, cause: TransitionCause)?]
    /// When the supervisor saw the kernel confirm the app's suspension (the first confirmation).
    package var confirmed: [Instant?]
    /// When the app's process was reaped after its termination for exit on suspend or for overrun (the
    /// transition's instant), and how it ended.
    package var reaped: [(at: Instant, exit: ProcessExit?)?]
    /// Per app, per task id: when `backgroundTaskWillExpire` was written to the app (a fresh clock reading).
    package var warned: [[UInt64: Instant]]
    /// Events seen a second time for the same task or app, or not of a planned kind (another cause or reason):
    /// per kind of `ProcessBenchEvents`, by its key.
    package var other: [String: Int] = [:]
    /// Planned events recorded once: the progress of the run.
    package var recorded = 0
    /// Cleared when the measurement ends, so that the shutdown's terminations are not recorded.
    package var isRecording = true

    package init(apps: Int) {
        self.entered = Array(repeating: nil, count: apps)
        self.suspended = Array(repeating: nil, count: apps)
        self.confirmed = Array(repeating: nil, count: apps)
        self.reaped = Array(repeating: nil, count: apps)
        self.warned = Array(repeating: [:], count: apps)
    }

    package mutating func transition(_ event: TransitionEvent, app index: Int) {
        guard self.isRecording else { return }
        switch (event.to, event.cause) {
        case (.background, _):
            if self.entered[index] == nil { self.entered[index] = event.at }
        case (.suspended, let cause):
            if self.suspended[index] == nil {
                self.suspended[index] = (event.at, cause)
            } else {
                self.other["suspensions", default: 0] += 1
            }
        case (.notRunning, .terminated(.exitsOnSuspend)) where self.reaped[index] == nil,
            (.notRunning, .terminated(.budgetOverrun)) where self.reaped[index] == nil:
            self.reaped[index] = (event.at, event.exit)
            self.recorded += 1
        case (.notRunning, _):
            self.other["terminations", default: 0] += 1
        default:
            break
        }
    }

    package mutating func warning(task: BackgroundTaskID, app index: Int, at instant: Instant) {
        guard self.isRecording else { return }
        if self.warned[index][task.rawValue] == nil {
            self.warned[index][task.rawValue] = instant
            self.recorded += 1
        } else {
            self.other["expirationWarnings", default: 0] += 1
        }
    }

    package mutating func confirmation(app index: Int, at instant: Instant) {
        guard self.isRecording else { return }
        if self.confirmed[index] == nil {
            self.confirmed[index] = instant
            self.recorded += 1
        } else {
            self.other["suspensions", default: 0] += 1
        }
    }

    /// Compares what happened with what `plan` expects: per role, which events and from which instant (see
    /// `ProcessBenchEvents`).
    package func analyse(_ plan: ProcessBenchPlan) -> ProcessBenchEvents {
        var result = ProcessBenchEvents()
        let configuration = plan.configuration
        for (index, role) in plan.roles.enumerated() {
            // An app that never entered the background loses all its events; their expected instant is moot.
            let entry = self.entered[index]
            let warned = self.warned[index]
            if role == .finisher {
                result.expirationWarnings.addUnexpected(warned.count)
            } else {
                let warning = entry.map(plan.plan.warning(after:)) ?? .origin
                var instants = warned.values.sorted()
                for _ in 0..<configuration.tasksPerApp {
                    let observed = instants.isEmpty || entry == nil ? nil : instants.removeFirst()
                    result.expirationWarnings.add(expectedAt: warning, observed: observed)
                }
                result.expirationWarnings.addUnexpected(entry == nil ? 0 : instants.count)
            }
            let deadline = entry.map(plan.plan.deadline(after:)) ?? .origin
            let suspension = self.suspended[index]
            switch role {
            case .finisher, .suspended:
                let cause: TransitionCause = role == .finisher ? .noOutstandingTasks : .budgetExpired
                let planned = suspension?.cause == cause ? suspension : nil
                if suspension != nil, planned == nil { result.add(unexpected: role) }
                // A finisher's suspension is measured from the core's decision (its last task ended); an
                // overrunner's from its budget deadline.
                let expected = role == .finisher ? planned?.at ?? .origin : deadline
                let observed = planned != nil && entry != nil ? self.confirmed[index] : nil
                if role == .finisher {
                    result.suspensionsAfterEnd.add(expectedAt: expected, observed: observed)
                } else {
                    result.suspensionsAtDeadline.add(expectedAt: expected, observed: observed)
                }
                if suspension == nil, self.confirmed[index] != nil { result.add(unexpected: role) }
                if self.reaped[index] != nil { result.terminations.addUnexpected(1) }
            case .exits, .killed:
                let signal = role == .exits ? SIGTERM : SIGKILL
                let reaped = self.reaped[index]
                let planned = reaped?.exit == .signaled(signal) && entry != nil ? reaped : nil
                if role == .exits {
                    if reaped != nil, planned == nil { result.terminations.addUnexpected(1) }
                    result.terminations.add(expectedAt: deadline, observed: planned?.at)
                } else {
                    if reaped != nil, planned == nil { result.kills.addUnexpected(1) }
                    result.kills.add(expectedAt: deadline, observed: planned?.at)
                }
                if suspension != nil { result.suspensionsAtDeadline.addUnexpected(1) }
                if self.confirmed[index] != nil { result.suspensionsAtDeadline.addUnexpected(1) }
            }
        }
        result.expirationWarnings.addUnexpected(self.other["expirationWarnings"] ?? 0)
        result.suspensionsAtDeadline.addUnexpected(self.other["suspensions"] ?? 0)
        result.terminations.addUnexpected(self.other["terminations"] ?? 0)
        return result
    }
}

/// The five kinds of event `runway bench --processes` measures, each against the core's instant:
/// - `expirationWarnings`: entry + budget − lead → the warning line written to the app;
/// - `suspensionsAfterEnd`: a finisher's last task ended (the core suspends it) → the kernel confirmed the stop;
/// - `suspensionsAtDeadline`: an overrunner's budget deadline → the kernel confirmed the stop;
/// - `terminations`: an exits-on-suspend overrunner's deadline → its process reaped, ended by SIGTERM;
/// - `kills`: the deadline of a `killed` overrunner (it ignores SIGTERM) → its process reaped, ended by SIGKILL.
package struct ProcessBenchEvents: Sendable {
    package var expirationWarnings = LatenessStatistics()
    package var suspensionsAfterEnd = LatenessStatistics()
    package var suspensionsAtDeadline = LatenessStatistics()
    package var terminations = LatenessStatistics()
    package var kills = LatenessStatistics()

    /// A suspension of `role`'s app with another cause than the plan's.
    package mutating func add(unexpected role: ProcessBenchPlan.Role) {
        if role == .finisher {
            self.suspensionsAfterEnd.addUnexpected(1)
        } else {
            self.suspensionsAtDeadline.addUnexpected(1)
        }
    }
}

/// `ProcessBenchObservations` behind a lock, shared by the loop thread and the driving thread.
package final class ProcessBenchRecorder: Sendable {
    package let observations: RunwayLock<ProcessBenchObservations>

    package init(apps: Int) {
        self.observations = RunwayLock(ProcessBenchObservations(apps: apps))
    }

    package var recorded: Int { self.observations.withLock { $0.recorded } }

    /// Stops recording and returns what was recorded.
    package func finish() -> ProcessBenchObservations {
        self.observations.withLock { observations in
            observations.isRecording = false
            return observations
        }
    }
}
