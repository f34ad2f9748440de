@_spi(Processes) import RunwayCore
@_spi(Processes) import RunwayProcesses
import Testing

/// The containment rule (Docs/Security.md, containment): a cgroup of its own, a uid other than root and the
/// daemon's, and neither root's group nor the daemon's as its gid or a supplementary group.
@Suite struct AppContainmentTests {
    let daemonUID: UInt32 = 1_000
    let daemonGID: UInt32 = 1_000

    func containment(_ user: AppUser?, inCgroup: Bool = true) -> AppContainment {
        AppContainment.of(user: user, daemonUID: self.daemonUID, daemonGID: self.daemonGID, inCgroup: inCgroup)
    }

    @Test func anAppOfItsOwnUserAndGroupInACgroupIsContained() {
        #expect(self.containment(AppUser(name: "app", uid: 2_000, gid: 2_000, groups: [2_000, 3_000])) == .contained)
    }

    @Test func anAppWithRootsGroupAsItsGidIsNotContained() {
        let reason = self.containment(AppUser(name: "app", uid: 2_000, gid: 0)).reason
        #expect(reason == "runs as root's group (gid 0) (GroupName, or the user's primary group)")
    }

    @Test func anAppWithTheDaemonsGroupAsItsGidIsNotContained() {
        let reason = self.containment(AppUser(name: "app", uid: 2_000, gid: 1_000)).reason
        #expect(reason == "runs as the daemon's group (gid 1000) (GroupName, or the user's primary group)")
    }

    @Test func anAppWithRootsOrTheDaemonsGroupAsASupplementaryGroupIsNotContained() {
        let root = self.containment(AppUser(name: "app", uid: 2_000, gid: 2_000, groups: [2_000, 0])).reason
        #expect(root == "has the supplementary group root's group (gid 0) (InitGroups)")
        let daemons = self.containment(AppUser(name: "app", uid: 2_000, gid: 2_000, groups: [1_000])).reason
        #expect(daemons == "has the supplementary group the daemon's group (gid 1000) (InitGroups)")
    }

    @Test func theUserIsJudgedBeforeTheGroupAndTheCgroupLast() {
        #expect(self.containment(nil).reason == "runs as the daemon's user (uid 1000); set UserName")
        #expect(self.containment(AppUser(name: "root", uid: 0, gid: 0)).reason == "runs as root (UserName root)")
        let signals = self.containment(AppUser(name: "app", uid: 2_000, gid: 2_000), inCgroup: false).reason
        #expect(signals == "has no cgroup of its own (signal suspension)")
    }
}
