import RunwayCore

/// How `runway bench --processes` suspends its apps (`ProcessOptions.suspensionMechanism`).
enum BenchSuspension: String, Sendable, CaseIterable {
    case auto, signal, freezer

    var mechanism: SuspensionMechanism {
        switch self {
        case .auto: return .auto
        case .signal: return .signal
        case .freezer: return .freezer
        }
    }
}

/// The workload of `runway bench --processes`: `BenchPlan`'s seeded apps (the same seed gives the same finishers
/// and the same end points as `runway bench`), each a real child process (`runway bench-child`) that speaks the
/// app protocol, under `OverrunPolicy.suspend`.
///
/// Every app begins `tasksPerApp` tasks while active, and enters the background at its offset into `duration`.
/// - A *finisher* ends all its tasks `endOffset` after `didEnterBackground` reached it, before the warning: the
///   core suspends it at the last end (B5), and the kernel confirms the stop or freeze (P1).
/// - The overrunners, in plan order, take three roles in turn (so that each appears once there are three):
///   `suspended` is an ordinary app: warned per task at entry + budget − lead (B4), its tasks ended and the app
///   suspended at entry + budget (B6, `OverrunPolicy.suspend`); `exits` declares `UIApplicationExitsOnSuspend`:
///   warned, then terminated instead of suspended at the deadline (`willTerminate`, then SIGTERM, which ends it,
///   E1, L4); `killed` is the same but ignores SIGTERM, so SIGKILL ends it `terminationGrace` after the
///   `willTerminate` that the deadline sent (P2).
///
/// Threading: a value, made before the run.
struct ProcessBenchPlan: Sendable {
    enum Role: String, Sendable {
        case finisher, suspended, exits, killed
    }

    let plan: BenchPlan
    let suspension: BenchSuspension
    /// `TerminationGrace` of the bench's scheduler: from `willTerminate` to SIGKILL.
    let terminationGrace: TimeSpan
    let roles: [Role]

    /// The bench's `TerminationGrace`: long enough for a child to acknowledge `willTerminate` and die of SIGTERM
    /// on a busy machine, short enough to keep the run short.
    static let defaultTerminationGrace = TimeSpan.milliseconds(500)

    init(_ plan: BenchPlan, suspension: BenchSuspension, terminationGrace: TimeSpan = Self.defaultTerminationGrace) {
        self.plan = plan
        self.suspension = suspension
        self.terminationGrace = terminationGrace
        let overrunnerRoles: [Role] = [.suspended, .exits, .killed]
        var overrunners = 0
        self.roles = plan.endPoints.map { point in
            guard point == nil else { return .finisher }
            defer { overrunners += 1 }
            return overrunnerRoles[overrunners % overrunnerRoles.count]
        }
    }

    var configuration: BenchConfiguration { self.plan.configuration }
    var apps: Int { self.roles.count }

    func count(_ role: Role) -> Int { self.roles.count(where: { $0 == role }) }

    var expectedWarnings: Int { self.plan.overrunnerCount * self.configuration.tasksPerApp }
    var expectedEvents: Int { self.expectedWarnings + self.apps }

    /// The arguments of app `index`'s child after the `runway` executable.
    func childArguments(of index: Int) -> [String] {
        var arguments = ["bench-child", "--tasks", "\(self.configuration.tasksPerApp)"]
        if let end = self.plan.endOffset(of: index) {
            arguments += ["--end-after-milliseconds", "\(end.nanoseconds / 1_000_000)"]
        }
        if self.roles[index] == .killed { arguments.append("--ignore-sigterm") }
        return arguments
    }

    /// True for the apps that declare `UIApplicationExitsOnSuspend`.
    func exitsOnSuspend(_ index: Int) -> Bool { self.roles[index] == .exits || self.roles[index] == .killed }
}
