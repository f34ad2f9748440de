import RunwayCore
import RunwayLocking

/// What one workload observed, per app and per task, as instants on the workload's clock. Written on the
/// loop thread (transitions, expiration handlers, NIO's scheduled tasks) and by the driving thread (entries
/// and end calls), always under `BenchRecorder`'s lock; analysed once the run is over.
package struct BenchObservations: Sendable {
    package enum Kind: Sendable {
        case warning, suspension, termination
    }

    /// Background entry per app: the instant its budget started (B3).
    package var entered: [Instant?]
    /// When the driving thread asked the loop to end the finisher's tasks (Runway only).
    package var endRequested: [Instant?]
    /// The finishers' `endBackgroundTask` calls (made on the loop thread): how many, how many threw, the loop
    /// time spent in them, and how many finishers' requests reached the loop after their expiration warning (the
    /// driving thread fell behind the plan).
    package var ends = EndCalls()
    /// Per task (`app * tasksPerApp + task`): when its expiration handler ran.
    package var warned: [Instant?]
    package var suspended: [Instant?]
    package var terminated: [Instant?]
    /// Events of an expected kind seen a second time for the same task or app, and suspensions or terminations
    /// with another cause than the plan's (budget expiry, another termination reason).
    package var repeated: [Kind: Int] = [:]
    /// Warnings, suspensions and terminations recorded once: the progress of the run.
    package var recorded = 0
    /// Cleared when the measurement ends, so that the shutdown's terminations are not recorded.
    package var isRecording = true

    package init(apps: Int, tasksPerApp: Int) {
        self.entered = Array(repeating: nil, count: apps)
        self.endRequested = Array(repeating: nil, count: apps)
        self.warned = Array(repeating: nil, count: apps * tasksPerApp)
        self.suspended = Array(repeating: nil, count: apps)
        self.terminated = Array(repeating: nil, count: apps)
    }

    /// Records a warning, suspension or termination of `index` (a task for warnings, else an app), once.
    package mutating func record(_ kind: Kind, of index: Int, at instant: Instant) {
        guard self.isRecording else { return }
        let isNew: Bool
        switch kind {
        case .warning: isNew = Self.setOnce(&self.warned[index], instant)
        case .suspension: isNew = Self.setOnce(&self.suspended[index], instant)
        case .termination: isNew = Self.setOnce(&self.terminated[index], instant)
        }
        if isNew { self.recorded += 1 } else { self.repeated[kind, default: 0] += 1 }
    }

    /// Records a suspension or termination that the plan does not produce (another cause).
    package mutating func recordOther(_ kind: Kind) {
        guard self.isRecording else { return }
        self.repeated[kind, default: 0] += 1
    }

    private static func setOnce(_ slot: inout Instant?, _ instant: Instant) -> Bool {
        guard slot == nil else { return false }
        slot = instant
        return true
    }

    /// Compares what happened with what `plan` expects.
    ///
    /// - Parameter expectsSuspensions: False for swift-nio, which has no suspension.
    package func analyse(_ plan: BenchPlan, expectsSuspensions: Bool) -> BenchEventStatistics {
        var result = BenchEventStatistics()
        let tasksPerApp = plan.configuration.tasksPerApp
        for app in 0..<plan.configuration.apps {
            // An app that never entered the background loses all its events; their expected instant is moot.
            let entry = self.entered[app]
            let tasks = (app * tasksPerApp)..<((app + 1) * tasksPerApp)
            if plan.endPoints[app] == nil {
                let warning = entry.map(plan.warning(after:)) ?? .origin
                for task in tasks {
                    result.warnings.add(expectedAt: warning, observed: entry == nil ? nil : self.warned[task])
                }
                let deadline = entry.map(plan.deadline(after:)) ?? .origin
                result.terminations.add(expectedAt: deadline, observed: entry == nil ? nil : self.terminated[app])
                if self.suspended[app] != nil { result.suspensions.addUnexpected(1) }
            } else {
                result.warnings.addUnexpected(self.warned[tasks].count(where: { $0 != nil }))
                if expectsSuspensions {
                    let requested = self.endRequested[app] ?? .origin
                    result.suspensions.add(expectedAt: requested, observed: entry == nil ? nil : self.suspended[app])
                }
                if self.terminated[app] != nil { result.terminations.addUnexpected(1) }
            }
        }
        result.warnings.addUnexpected(self.repeated[.warning] ?? 0)
        result.suspensions.addUnexpected(self.repeated[.suspension] ?? 0)
        result.terminations.addUnexpected(self.repeated[.termination] ?? 0)
        return result
    }
}

/// The finishers' `endBackgroundTask` calls of one run.
package struct EndCalls: Sendable {
    package var calls = 0
    package var errors = 0
    package var nanoseconds: Int64 = 0
    package var afterWarning = 0
}

/// The three kinds of event a run measures.
package struct BenchEventStatistics: Sendable {
    package var warnings = LatenessStatistics()
    package var suspensions = LatenessStatistics()
    package var terminations = LatenessStatistics()
}

/// `BenchObservations` behind a lock, shared by the loop thread and the driving thread.
package final class BenchRecorder: Sendable {
    package let observations: RunwayLock<BenchObservations>

    package init(apps: Int, tasksPerApp: Int) {
        self.observations = RunwayLock(BenchObservations(apps: apps, tasksPerApp: tasksPerApp))
    }

    package func record(_ kind: BenchObservations.Kind, of index: Int, at instant: Instant) {
        self.observations.withLock { $0.record(kind, of: index, at: instant) }
    }

    package var recorded: Int { self.observations.withLock { $0.recorded } }

    /// Stops recording and returns what was recorded.
    package func finish() -> BenchObservations {
        self.observations.withLock { observations in
            observations.isRecording = false
            return observations
        }
    }
}
