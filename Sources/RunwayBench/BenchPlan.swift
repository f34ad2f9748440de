import RunwayCore

/// The parameters of one `runway bench` run, validated by `BenchCommand`.
package struct BenchConfiguration: Sendable {
    package var apps: Int
    package var tasksPerApp: Int
    /// Every app's background budget (B3).
    package var budget: TimeSpan
    /// `ExpirationWarningLead` (B4).
    package var warningLead: TimeSpan
    /// Expected share of apps (and so of tasks) whose tasks all end before the warning.
    package var endFraction: Double
    /// The window over which the apps enter the background, evenly spaced; zero sends them all at once.
    package var duration: TimeSpan
    package var seed: UInt64
    /// SCHED_FIFO priority for both loop threads (Runway's, and swift-nio's with `--compare nio`); nil leaves
    /// them at the inherited policy.
    package var realtimePriority: Int32? = nil
    /// `RunwayScheduler(wakeupSpin:)` in microseconds (Runway only: swift-nio has no equivalent); 0 for none.
    package var wakeupSpinMicroseconds: Int = 0

    package init(
        apps: Int,
        tasksPerApp: Int,
        budget: TimeSpan,
        warningLead: TimeSpan,
        endFraction: Double,
        duration: TimeSpan,
        seed: UInt64,
        realtimePriority: Int32? = nil,
        wakeupSpinMicroseconds: Int = 0
    ) {
        self.apps = apps
        self.tasksPerApp = tasksPerApp
        self.budget = budget
        self.warningLead = warningLead
        self.endFraction = endFraction
        self.duration = duration
        self.seed = seed
        self.realtimePriority = realtimePriority
        self.wakeupSpinMicroseconds = wakeupSpinMicroseconds
    }

    /// From background entry to the expiration warning: `max(0, budget - lead)` (B4).
    package var warningOffset: TimeSpan {
        self.warningLead >= self.budget
            ? .zero : TimeSpan(nanoseconds: self.budget.nanoseconds - self.warningLead.nanoseconds)
    }
}

/// What each app of the workload does, decided by a seeded generator, so that a seed always gives the same
/// apps, tasks and expected counts (the timings differ from run to run, the counts must not).
///
/// Every app is launched, begins `tasksPerApp` background tasks while active (free until it leaves the
/// foreground, B2) and enters the background at its offset into `duration`. Then either:
/// - a *finisher* (probability `endFraction`) ends all its tasks at `endPoint` × (warning − entry) after its
///   entry, `endPoint` in [0.25, 0.75), so before the warning: no handler is called and the last end suspends
///   it at once (B5); or
/// - an *overrunner* ignores the warning: one expiration handler per task at entry + budget − lead (B4),
///   then a termination for overrun at entry + budget (B6, `OverrunPolicy.terminate`).
package struct BenchPlan: Sendable {
    package let configuration: BenchConfiguration
    /// Per app: where in its warning window a finisher ends its tasks, nil for an overrunner.
    package let endPoints: [Double?]

    package init(_ configuration: BenchConfiguration) {
        self.configuration = configuration
        var random = BenchRandom(seed: configuration.seed)
        self.endPoints = (0..<configuration.apps).map { _ in
            let finishes = random.unitInterval() < configuration.endFraction
            let point = 0.25 + 0.5 * random.unitInterval()
            return finishes ? point : nil
        }
    }

    package var finisherCount: Int { self.endPoints.count(where: { $0 != nil }) }
    package var overrunnerCount: Int { self.endPoints.count - self.finisherCount }
    package var taskCount: Int { self.configuration.apps * self.configuration.tasksPerApp }

    package var expectedWarnings: Int { self.overrunnerCount * self.configuration.tasksPerApp }
    package var expectedSuspensions: Int { self.finisherCount }
    package var expectedTerminations: Int { self.overrunnerCount }
    package var expectedEvents: Int { self.expectedWarnings + self.expectedSuspensions + self.expectedTerminations }

    /// When app `index` enters the background, after the start of the deadline phase.
    package func homeOffset(of index: Int) -> TimeSpan {
        let apps = self.configuration.apps
        guard apps > 1 else { return .zero }
        return TimeSpan(nanoseconds: self.configuration.duration.nanoseconds / Int64(apps) * Int64(index))
    }

    /// When a finisher ends its tasks, from its background entry; nil for an overrunner.
    package func endOffset(of index: Int) -> TimeSpan? {
        guard let point = self.endPoints[index] else { return nil }
        return TimeSpan(nanoseconds: Int64(Double(self.configuration.warningOffset.nanoseconds) * point))
    }

    /// The expiration warning of an app that entered the background at `entry` (B4).
    package func warning(after entry: Instant) -> Instant { entry + self.configuration.warningOffset }

    /// The budget deadline of an app that entered the background at `entry` (B3).
    package func deadline(after entry: Instant) -> Instant { entry + self.configuration.budget }
}
