/// How a process app is suspended (P1): `ProcessOptions.suspensionMechanism` (`SuspensionMechanism` in
/// `Runway.plist`). The core only says "suspend"; the supervisor picks the mechanism once per app
/// (`SuspensionMechanismChoice`).
@_spi(Processes)
public enum SuspensionMechanism: String, Hashable, Sendable, CaseIterable {
    /// The cgroup v2 freezer where the scheduler may use it, otherwise SIGSTOP.
    case auto
    /// The cgroup v2 freezer only (`cgroup.freeze`).
    case freezer
    /// SIGSTOP and SIGCONT only.
    case signal
}
