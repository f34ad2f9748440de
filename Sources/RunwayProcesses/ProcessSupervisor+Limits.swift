@_spi(Processes) import RunwayCore

/// Resource limits at launch: the cgroup ceilings are written here, before the spawn; the setrlimit values and the
/// cgroup v1 leaves to join go to the child with the spawn request (`ResourceLimitRequest`). Loop thread only.
extension ProcessSupervisor {
    /// Writes the app's cgroup ceilings (`AppCgroupLimits`): to its cgroup v2 leaf `cgroup`, or to cgroup v1 leaves.
    ///
    /// - Returns: The v1 leaves the child joins, or why the launch is refused, naming the key.
    func applyCgroupLimits(
        _ app: AppID,
        _ limits: ProcessLimits,
        _ cgroup: AppCgroup?,
        _ choice: SuspensionMechanismChoice?
    ) -> Result<[String], LaunchRefusal> {
        // An app without ceilings costs its launch nothing here: no cgroupfs path is looked up.
        guard limits.needsCgroup else { return .success([]) }
        let reason =
            if let fallback = choice?.fallbackReason {
                "it runs in signal mode: \(fallback)"
            } else {
                "it runs in signal mode: SuspensionMechanism is \(self.options.suspensionMechanism.rawValue)"
            }
        return AppCgroupLimits.apply(
            AppCgroupLimits.ceilings(limits),
            app: app,
            cgroup: cgroup,
            runwayDirectory: self.cgroups.knownRunwayDirectory,
            v1: self.cgroups.v1,
            mechanismReason: reason
        )
    }

    /// The spawn request's limits: the setrlimit values and the v1 leaves; nil when there are none.
    static func limitRequest(_ limits: ProcessLimits, joining leaves: [String]) -> ResourceLimitRequest? {
        guard !limits.resources.isEmpty || !leaves.isEmpty else { return nil }
        var request = ResourceLimitRequest(limits)
        request.cgroupV1Directories = leaves
        return request
    }
}
