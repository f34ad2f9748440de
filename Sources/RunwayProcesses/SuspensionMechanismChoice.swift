@_spi(Processes) import RunwayCore

/// The suspension mechanism one process app uses, and why not the freezer when `auto` fell back to signals (P1).
struct SuspensionMechanismChoice: Hashable, Sendable {
    var mechanism: ResolvedSuspensionMechanism
    /// Why the freezer is not used; set only when `auto` fell back to signals.
    var fallbackReason: String?

    /// The one rule that turns the requested `SuspensionMechanism` (`ProcessOptions.suspensionMechanism`) into
    /// the mechanism an app uses. Pure: the caller passes how to probe the freezer, which this calls at most once.
    ///
    /// | requested | freezer probe | result                                     |
    /// |-----------|---------------|--------------------------------------------|
    /// | `signal`  | not called    | signal                                     |
    /// | `auto`    | success       | freezer                                    |
    /// | `auto`    | failure       | signal, with the failure as fallback reason |
    /// | `freezer` | success       | freezer                                    |
    /// | `freezer` | failure       | failure (the app cannot be launched)       |
    ///
    /// - Parameters:
    ///   - requested: The setting.
    ///   - freezer: Makes the freezer ready for the app (Runway's cgroup directory, the app's cgroup) and returns
    ///     the app's cgroup directory, or why the freezer cannot be used. Not called for `signal`, so that a
    ///     signal-only host never touches the cgroup tree.
    /// - Returns: The choice, or why the required freezer is unavailable.
    static func resolve(
        requested: SuspensionMechanism,
        freezer: () -> Result<String, CgroupUnavailable>
    ) -> Result<SuspensionMechanismChoice, CgroupUnavailable> {
        switch requested {
        case .signal:
            return .success(SuspensionMechanismChoice(mechanism: .signal))
        case .auto:
            switch freezer() {
            case .success: return .success(SuspensionMechanismChoice(mechanism: .freezer))
            case .failure(let unavailable):
                return .success(SuspensionMechanismChoice(mechanism: .signal, fallbackReason: unavailable.reason))
            }
        case .freezer:
            return freezer().map { _ in SuspensionMechanismChoice(mechanism: .freezer) }
        }
    }
}
