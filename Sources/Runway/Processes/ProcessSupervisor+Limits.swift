import RunwayCore

/// Resource limits at launch: the cgroup ceilings are written here, before the spawn; the setrlimit values go to the
/// child with the spawn request (`ResourceLimitRequest`). Loop thread only.
extension ProcessSupervisor {
    /// Writes the app's cgroup ceilings to `cgroup` (`AppCgroupLimits`).
    ///
    /// - Returns: Why the launch is refused, naming the key; nil when there is nothing to refuse.
    func applyCgroupLimits(
        _ limits: ProcessLimits,
        _ cgroup: AppCgroup?,
        _ choice: SuspensionMechanismChoice?
    ) -> String? {
        // An app without ceilings costs its launch nothing here: no cgroupfs path is looked up.
        guard limits.needsCgroup else { return nil }
        var runwayDirectory: String?
        if case .success(let directory) = self.runwayCgroupDirectory { runwayDirectory = directory }
        let reason =
            if let fallback = choice?.fallbackReason {
                "it runs in signal mode: \(fallback)"
            } else {
                "it runs in signal mode: SuspensionMechanism is \(self.options.suspensionMechanism.rawValue)"
            }
        return AppCgroupLimits.apply(limits, cgroup: cgroup, runwayDirectory: runwayDirectory, mechanismReason: reason)
    }
}
