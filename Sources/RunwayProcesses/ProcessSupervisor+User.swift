import Logging
@_spi(Processes) import RunwayCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The user an app runs as (`UserName`, `AppUserName`) and what that makes of its containment. Loop thread only.
extension ProcessSupervisor {
    /// The credentials the child takes before its exec: `user` when this process runs as root; nil (none to
    /// take) when there is no `UserName` or it names this process's own uid and gid. Any other user is refused:
    /// only root may switch (a systemd unit keeps CAP_SETUID and CAP_SETGID for it).
    ///
    /// - Returns: The credentials, or the reason the launch is refused (it names the key).
    static func launchCredentials(
        _ user: AppUser?,
        daemonUID: UInt32 = DaemonCredentials.uid,
        daemonGID: UInt32 = DaemonCredentials.gid
    ) -> Result<AppUser?, UserSwitchRefused> {
        guard let user else { return .success(nil) }
        if daemonUID == 0 { return .success(user) }
        if user.uid == daemonUID && user.gid == daemonGID { return .success(nil) }
        return .failure(
            UserSwitchRefused(
                description: "UserName \(user.name) (uid \(user.uid), gid \(user.gid)): the daemon runs as uid "
                    + "\(daemonUID) gid \(daemonGID), and only a daemon running as root can start an app as another "
                    + "user or group"
            )
        )
    }

    /// Whether the app is contained (`AppContainment`): by the user it runs as and whether its runs have a cgroup
    /// (the resolved mechanism, or before its first launch the configured one).
    func containment(of managed: Managed) -> AppContainment {
        let inCgroup = managed.choice.map { $0.mechanism == .freezer } ?? (self.options.suspensionMechanism != .signal)
        return AppContainment.of(
            user: managed.spec.user,
            daemonUID: DaemonCredentials.uid,
            daemonGID: DaemonCredentials.gid,
            inCgroup: inCgroup
        )
    }
}

/// This process's effective uid and gid, read once. The daemon never changes its own credentials (a child takes an
/// app's user after the clone, before its exec), and `containment(of:)` runs for every process app of every status
/// snapshot and `/metrics` scrape, where two system calls per app would add up (20,000 a scrape at 10,000 apps).
enum DaemonCredentials {
    static let uid = UInt32(geteuid())
    static let gid = UInt32(getegid())
}

/// A launch refused because the daemon cannot become the app's user.
struct UserSwitchRefused: Error, Hashable, CustomStringConvertible {
    var description: String
}

/// Whether this process may give its apps cgroup namespaces of their own. Any thread.
enum CgroupNamespaceSupport {
    /// Set by the first spawn whose `unshare(CLONE_NEWCGROUP)` was refused (EPERM); later spawns do not ask.
    static let refused = Atomic<Bool>(false)
    /// Set once the refusal was logged.
    private static let reported = Atomic<Bool>(false)

    /// Logs the refusal, once per process, when it happened.
    static func reportRefusal(_ logger: Logger) {
        guard Self.refused.load(ordering: .relaxed), !Self.reported.exchange(true, ordering: .relaxed) else { return }
        logger.warning(
            "apps start without a cgroup namespace of their own: unshare(CLONE_NEWCGROUP) was refused",
            metadata: ["hint": "a systemd unit needs RestrictNamespaces=cgroup; apps of another user stay contained"]
        )
    }
}
