@_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses

/// How `runway bench --processes` suspends its apps (`ProcessOptions.suspensionMechanism`).
package enum BenchSuspension: String, Sendable, CaseIterable {
    case auto, signal, freezer

    package var mechanism: SuspensionMechanism {
        switch self {
        case .auto: return .auto
        case .signal: return .signal
        case .freezer: return .freezer
        }
    }
}

/// Which roles the overrunners of `runway bench --processes` take (`--overrunners`).
package enum BenchOverrunners: String, Sendable, CaseIterable {
    /// `suspended`, `exits` and `killed` in turn. The default.
    case mixed
    /// Every overrunner is `killed`: the kill at the deadline, measured over as many apps as overrun.
    case killed
}

/// The workload of `runway bench --processes`: `BenchPlan`'s seeded apps (the same seed gives the same finishers
/// and the same end points as `runway bench`), each a real child process (`runway bench-child`) that speaks the
/// app protocol, under `OverrunPolicy.suspend`.
///
/// Every app begins `tasksPerApp` tasks while active, and enters the background at its offset into `duration`.
/// - A *finisher* ends all its tasks `endOffset` after `didEnterBackground` reached it, before the warning: the
///   core suspends it at the last end (B5), and the kernel confirms the stop or freeze (P1).
/// - The overrunners, in plan order, take three roles in turn (so that each appears once there are three), or all
///   the `killed` role with `--overrunners killed`: `suspended` is an ordinary app: warned per task at entry +
///   budget − lead (B4), its tasks ended and the app suspended at entry + budget (B6, `OverrunPolicy.suspend`);
///   `exits` declares `UIApplicationExitsOnSuspend`: warned, then terminated instead of suspended at the deadline
///   (`willTerminate`, then SIGTERM, which ends it, E1, L4); `killed` is an ordinary app whose own overrun policy is
///   `terminate` (`AppDescriptor.overrunPolicy`) and which ignores SIGTERM: warned, then SIGKILLed at the deadline
///   (B6, P2), with no SIGTERM and no grace.
///
/// Threading: a value, made before the run.
package struct ProcessBenchPlan: Sendable {
    package enum Role: String, Sendable {
        case finisher, suspended, exits, killed
    }

    package let plan: BenchPlan
    package let suspension: BenchSuspension
    package let overrunners: BenchOverrunners
    /// `TerminationGrace` of the bench's scheduler: from `willTerminate` to SIGKILL of an `exits` app (a `killed`
    /// app gets none).
    package let terminationGrace: TimeSpan
    package let roles: [Role]

    /// The bench's `TerminationGrace`: long enough for a child to acknowledge `willTerminate` and die of SIGTERM
    /// on a busy machine, short enough to keep the run short.
    package static let defaultTerminationGrace = TimeSpan.milliseconds(500)

    package init(
        _ plan: BenchPlan,
        suspension: BenchSuspension,
        overrunners: BenchOverrunners = .mixed,
        terminationGrace: TimeSpan = Self.defaultTerminationGrace
    ) {
        self.plan = plan
        self.suspension = suspension
        self.overrunners = overrunners
        self.terminationGrace = terminationGrace
        let overrunnerRoles: [Role] = overrunners == .killed ? [.killed] : [.suspended, .exits, .killed]
        var overrunners = 0
        self.roles = plan.endPoints.map { point in
            guard point == nil else { return .finisher }
            defer { overrunners += 1 }
            return overrunnerRoles[overrunners % overrunnerRoles.count]
        }
    }

    package var configuration: BenchConfiguration { self.plan.configuration }
    package var apps: Int { self.roles.count }

    package func count(_ role: Role) -> Int { self.roles.count(where: { $0 == role }) }

    package var expectedWarnings: Int { self.plan.overrunnerCount * self.configuration.tasksPerApp }
    package var expectedEvents: Int { self.expectedWarnings + self.apps }

    /// The arguments of app `index`'s child after the `runway` executable.
    package func childArguments(of index: Int) -> [String] {
        var arguments = ["bench-child", "--tasks", "\(self.configuration.tasksPerApp)"]
        if let end = self.plan.endOffset(of: index) {
            arguments += ["--end-after-milliseconds", "\(end.nanoseconds / 1_000_000)"]
        }
        if self.roles[index] == .killed { arguments.append("--ignore-sigterm") }
        return arguments
    }

    /// True for the apps that declare `UIApplicationExitsOnSuspend`.
    package func exitsOnSuspend(_ index: Int) -> Bool { self.roles[index] == .exits }

    /// The app's own overrun policy: `terminate` for a `killed` app, the bench's `suspend` for the others.
    package func overrunPolicy(_ index: Int) -> OverrunPolicy? { self.roles[index] == .killed ? .terminate : nil }
}
