import Testing

@_spi(Processes) @testable import RunwayProcesses

/// What one process app holds of the daemon's `RLIMIT_NOFILE`, and when a launch would take the reserve.
@Suite("The descriptor reserve: what a run holds, and the launch that would take the reserve")
struct DescriptorBudgetTests {
    @Test("A run holds its pidfd and two pipes; a protocol socket, oom_score_adj and the freezer's two files add")
    func aRunsChargeCountsEachDescriptorItHolds() {
        #expect(DescriptorBudget.runCharge(speaksProtocol: false, freezer: false, adjustsOOMScore: false) == 3)
        #expect(DescriptorBudget.runCharge(speaksProtocol: true, freezer: false, adjustsOOMScore: false) == 4)
        #expect(DescriptorBudget.runCharge(speaksProtocol: false, freezer: false, adjustsOOMScore: true) == 4)
        #expect(DescriptorBudget.runCharge(speaksProtocol: true, freezer: true, adjustsOOMScore: true) == 7)
        // While it starts: the child's two pipe ends and socket end, the cgroup directory, the v1 leaves.
        #expect(DescriptorBudget.spawnCharge(speaksProtocol: true, freezer: true, cgroupV1Leaves: 0) == 4)
        #expect(DescriptorBudget.spawnCharge(speaksProtocol: false, freezer: false, cgroupV1Leaves: 3) == 5)
        // Each output file with its directory.
        #expect(DescriptorBudget.fileCharge(files: 2) == 4)
    }

    @Test("A launch is admitted while it leaves the reserve free, counting what it opens while it starts")
    func aLaunchThatWouldTakeTheReserveIsRefused() {
        var budget = DescriptorBudget(limit: 200, reserve: 100, baseline: 50)
        // 200 - 50 - 40 - 7 - 3 = 100: exactly the reserve left.
        budget.charge(40)
        #expect(budget.admits(7, transient: 3))
        #expect(!budget.admits(7, transient: 4))
        #expect(!budget.admits(8, transient: 3))
        budget.release(40)
        #expect(budget.held == 0)
        #expect(budget.free(after: 7) == 143)
        // A limit lowered below what is held admits nothing.
        budget.limit = 120
        #expect(!budget.admits(0, transient: 0))
    }
}
