import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where the apps' cgroups go: Runway's own cgroup v2 directory (discovered and created at the first need, then
/// remembered, failure included), that directory open for the app cgroups' files (`CgroupBase`), and the apps'
/// cgroup v1 leaves for ceilings cgroup v2 does not offer here (`CgroupV1Limits`). The supervisor creates and
/// removes each app's own cgroup; this type owns what they are placed in, and removes Runway's directory at close.
///
/// Threading: loop thread only; not thread-safe.
///
/// Time: reads no clock and arms no timer. The discovery reads `/proc/self/mountinfo` and `/proc/self/cgroup` and
/// makes a directory, once per supervisor; its failure is logged once.
final class CgroupPlacement {
    /// Runway's cgroup directory, or why there is none; nil until the first `discoverRunwayDirectory`.
    private(set) var runwayDirectory: Result<String, CgroupUnavailable>?
    /// That directory, open; nil until discovered or when it cannot be opened.
    private(set) var base: CgroupBase?
    /// The apps' cgroup v1 leaves.
    let v1: CgroupV1Limits
    private let discover: () -> Result<String, CgroupUnavailable>
    private let logger: Logger

    /// Discovers nothing yet.
    ///
    /// - Parameters:
    ///   - discover: Finds and makes Runway's directory; called at most once. The default walks this process's
    ///     cgroup v2 hierarchy (`CgroupHierarchy`).
    init(
        logger: Logger,
        v1: CgroupV1Limits = CgroupV1Limits(),
        discover: @escaping () -> Result<String, CgroupUnavailable> = {
            CgroupHierarchy.discover().flatMap { $0.makeRunwayDirectory() }
        }
    ) {
        self.logger = logger
        self.v1 = v1
        self.discover = discover
    }

    /// Runway's directory when it was discovered and made; nil before the first need or when it is unavailable.
    var knownRunwayDirectory: String? {
        guard case .success(let directory) = self.runwayDirectory else { return nil }
        return directory
    }

    /// Runway's cgroup directory: discovered and created at the first call, then remembered (success or
    /// failure); a failure is logged once.
    func discoverRunwayDirectory() -> Result<String, CgroupUnavailable> {
        if let known = self.runwayDirectory { return known }
        let discovered = self.discover()
        if case .failure(let reason) = discovered {
            self.logger.info("cgroup v2 freezer unavailable", metadata: ["reason": "\(reason)"])
        }
        self.runwayDirectory = discovered
        if case .success(let directory) = discovered { self.base = CgroupBase(path: directory) }
        return discovered
    }

    /// A new cgroup for one app under Runway's directory (discovered first when needed), or why there is none.
    func createAppCgroup(named name: String) -> Result<AppCgroup, CgroupUnavailable> {
        self.discoverRunwayDirectory().flatMap { parent in
            AppCgroup.create(in: parent, name: name, base: self.base)
        }
    }

    /// A dead daemon's v1 leaves would go on holding what ran in them, and their directories would stay, until
    /// an app here asked for a ceiling; the v2 ones go when Runway's v2 directory is made. Called once, at start.
    func removeStaleV1Directories() {
        self.v1.removeStaleDirectories()
    }

    /// Removes Runway's directory (once the apps' cgroups are removed, it is empty) and the v1 leaves.
    func close() {
        if let directory = self.knownRunwayDirectory { _ = rmdir(directory) }
        self.v1.close()
    }
}
