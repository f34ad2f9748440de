import Foundation
import Logging
import Testing

@testable import Runway
@testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// Where the apps' cgroups go, with the discovery of Runway's directory given by the test: it runs once, its
/// answer (failure included) is remembered, a failure is logged once, and the close removes the directory.
@Suite("Cgroup placement")
struct CgroupPlacementTests {
    /// No cgroup v1 hierarchy: the placement's close then touches nothing of the host's.
    static func withoutV1() -> CgroupV1Limits { CgroupV1Limits(mountinfo: "", membership: "") }

    @Test("an unavailable cgroup directory is looked for once and logged once, however many apps ask")
    func unavailableDirectoryIsDiscoveredAndLoggedOnce() {
        let log = Recorder<String>()
        var discoveries = 0
        let placement = CgroupPlacement(logger: .recording(log), v1: Self.withoutV1()) {
            discoveries += 1
            return .failure(CgroupUnavailable(reason: "no cgroup2 mount"))
        }
        #expect(placement.runwayDirectory == nil, "nothing is discovered before the first need")
        for index in 0..<3 {
            guard case .failure(let reason) = placement.createAppCgroup(named: "com.test.placement.\(index)") else {
                Issue.record("an app cgroup was created without Runway's directory")
                return
            }
            #expect(reason.reason == "no cgroup2 mount")
        }
        #expect(discoveries == 1)
        #expect(placement.knownRunwayDirectory == nil)
        #expect(placement.base == nil)
        #expect(log.values.filter { $0.hasPrefix("cgroup v2 freezer unavailable") }.count == 1)
        placement.close()
    }

    @Test("a discovered directory is remembered and opened as the apps' base, and removed at close")
    func discoveredDirectoryIsRememberedAndRemovedAtClose() throws {
        let directory = try TemporaryPaths.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var discoveries = 0
        let placement = CgroupPlacement(logger: Logger(label: "runway.test"), v1: Self.withoutV1()) {
            discoveries += 1
            return .success(directory)
        }
        #expect(placement.knownRunwayDirectory == nil)
        #expect(try placement.discoverRunwayDirectory().get() == directory)
        #expect(try placement.discoverRunwayDirectory().get() == directory)
        #expect(discoveries == 1)
        #expect(placement.knownRunwayDirectory == directory)
        #expect(placement.base?.path == directory)
        placement.close()
        #expect(access(directory, F_OK) != 0, "Runway's directory is removed once empty")
    }
}
