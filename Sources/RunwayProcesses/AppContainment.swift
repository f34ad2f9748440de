@_spi(Processes) import RunwayCore

/// Whether a process app is contained: whether the scheduler, not the app, decides when it stops running. Only an
/// app in a cgroup of its own (the freezer) that runs as a user other than root and the daemon's, in groups other
/// than root's and the daemon's, is: one that runs as either user may write its cgroup's files (leave the cgroup,
/// thaw itself), signal the daemon's other children, ptrace them; one with group 0 or the daemon's group (its gid
/// or a supplementary group) has that group's rights on the daemon's files (other apps' logs, the state
/// directory); under signal suspension any app may leave its process group (`setsid`) and escape SIGSTOP.
@_spi(Processes)
public enum AppContainment: Hashable, Sendable {
    /// A cgroup of its own, a user other than root and the daemon's, and no group of theirs.
    case contained
    /// Why not, e.g. "runs as the daemon's user (uid 0)".
    case notContained(String)

    /// The containment of an app that runs as `user` (nil: the daemon's own) under a daemon running as
    /// `daemonUID` and `daemonGID`, in a cgroup of its own (`inCgroup`: the freezer mechanism) or not.
    public static func of(user: AppUser?, daemonUID: UInt32, daemonGID: UInt32, inCgroup: Bool) -> AppContainment {
        guard let user, user.uid != daemonUID else {
            return .notContained("runs as the daemon's user (uid \(user?.uid ?? daemonUID)); set UserName")
        }
        guard user.uid != 0 else { return .notContained("runs as root (UserName \(user.name))") }
        if let reason = Self.groupReason(user.gid, daemonGID: daemonGID) {
            return .notContained("runs as \(reason) (GroupName, or the user's primary group)")
        }
        if let reason = user.groups.lazy.compactMap({ Self.groupReason($0, daemonGID: daemonGID) }).first {
            return .notContained("has the supplementary group \(reason) (InitGroups)")
        }
        guard inCgroup else { return .notContained("has no cgroup of its own (signal suspension)") }
        return .contained
    }

    /// "root's group (gid 0)" or "the daemon's group (gid N)" when `gid` is either; nil otherwise.
    private static func groupReason(_ gid: UInt32, daemonGID: UInt32) -> String? {
        if gid == 0 { return "root's group (gid 0)" }
        if gid == daemonGID { return "the daemon's group (gid \(gid))" }
        return nil
    }

    /// True for `.contained`.
    public var isContained: Bool { self == .contained }

    /// Why the app is not contained; nil when it is.
    public var reason: String? {
        guard case .notContained(let reason) = self else { return nil }
        return reason
    }
}
