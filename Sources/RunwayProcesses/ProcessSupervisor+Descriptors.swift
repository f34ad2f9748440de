import CRunwayProcess
@_spi(Processes) import RunwayCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The descriptor reserve (`DescriptorBudget`): a launch is refused before it opens anything when the run would
/// leave fewer than `ProcessOptions.descriptorReserve` descriptors free under `RLIMIT_NOFILE`; each run's
/// descriptors are charged when it starts and released when its exit is handled. Loop thread only.
extension ProcessSupervisor {
    /// The budget when the supervisor starts: `RLIMIT_NOFILE`'s soft limit, and what is open now (one walk of
    /// `/proc/self/fd`, less the walk's own descriptor), plus the four spawn slots when no spawn has opened them yet.
    static func descriptorBudget(reserve: Int) -> DescriptorBudget {
        let open = max(0, SystemFiles.entries(of: "/proc/self/fd").count - 1)
        let slots = ChildProcess.spawnSlots.filter { $0 < 0 }.count
        return DescriptorBudget(limit: Self.descriptorLimit(), reserve: max(0, reserve), baseline: open + slots)
    }

    /// `RLIMIT_NOFILE`'s soft limit now (one system call); `Int32.max` when it cannot be read or is larger.
    static func descriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(Int32.max) else {
            return Int(Int32.max)
        }
        return Int(limit.rlim_cur)
    }

    /// What a launch of `managed` charges: its run, its output files (at the first run only) and, for the spawn's
    /// duration, the child's ends and cgroup files.
    func descriptorCharges(_ managed: Managed) -> (run: Int, files: Int, transient: Int) {
        let spec = managed.spec
        let freezer = managed.choice?.mechanism == .freezer
        let run = DescriptorBudget.runCharge(
            speaksProtocol: spec.speaksProtocol,
            freezer: freezer,
            adjustsOOMScore: self.options.adjustsOOMScore
        )
        var files = 0
        if managed.fileDescriptors == 0 {
            let paths = Set([spec.outputFiles.standardOutPath, spec.outputFiles.standardErrorPath].compactMap { $0 })
            files = DescriptorBudget.fileCharge(files: paths.count)
        }
        let leaves =
            spec.limits.needsCgroup && !freezer
            ? AppCgroupLimits.ceilings(spec.limits).filter { $0.value != nil }.count : 0
        let transient = DescriptorBudget.spawnCharge(
            speaksProtocol: spec.speaksProtocol,
            freezer: freezer,
            cgroupV1Leaves: leaves
        )
        return (run, files, transient)
    }

    /// Why launching `app` now is refused, naming `RLIMIT_NOFILE`, `LimitNOFILE` and the reserve; nil when the
    /// launch leaves the reserve free.
    func descriptorRefusal(_ app: AppID, _ managed: Managed) -> String? {
        let (run, files, transient) = self.descriptorCharges(managed)
        self.descriptors.limit = self.descriptorLimit(now: self.loop.turnNow)
        let budget = self.descriptors
        guard !budget.admits(run + files, transient: transient) else { return nil }
        return "launch refused at the descriptor limit: RLIMIT_NOFILE is \(budget.limit) (LimitNOFILE in the "
            + "systemd unit, ulimit -n) and \(budget.baseline + budget.held) descriptors are in use "
            + "(\(budget.held) by the apps' runs and output files); this run needs \(run + files) more and "
            + "\(transient) while it starts, which would leave \(budget.free(after: run + files + transient)) free, "
            + "fewer than the reserve of \(budget.reserve) kept for control and metrics clients; raise LimitNOFILE"
    }

    /// The run just started holds its descriptors from now (and its output files from its first run on).
    func descriptorsCharged(_ managed: inout Managed) {
        let (run, files, _) = self.descriptorCharges(managed)
        self.descriptors.charge(run + files)
        managed.runDescriptors = run
        managed.fileDescriptors += files
    }

    /// The run's exit was handled: its descriptors are closed or closing (its pipes at their end of file, a loop
    /// turn later at most); its output files stay open for the next run.
    func descriptorsReleased(_ managed: inout Managed) {
        self.descriptors.release(managed.runDescriptors)
        managed.runDescriptors = 0
    }
}
