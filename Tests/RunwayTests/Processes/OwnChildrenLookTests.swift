import Foundation
@_spi(Driver) @_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

#if canImport(Glibc)
import Glibc
#endif

/// The look at this process's own children reads the other apps' tracked processes only for a child that is no app's
/// main process: at a loop turn of N exits or confirmations, with every child a main process, it costs the list of
/// children alone, not a read of every app. Real children.
@Suite("Process apps: the look at this process's children reads every app only for a stranger", .serialized)
struct OwnChildrenLookTests {
    /// This process's children that are not an app's main process (other suites' children, orphans).
    static func strangers() -> [Int32] {
        let mains = SpawnedChildren.withOwned { $0 }
        return ProcessTree().children(of: getpid()).filter { !mains.contains($0) }
    }

    @Test("a look at children that are all main processes gathers no app's tracked processes")
    func lookAmongMainProcessesReadsNoApp() async throws {
        let (scheduler, _) = try LaunchedApps.launched(6, .signal)
        // Other suites of this test process start children of their own (helpers, daemons): a sample counts only when
        // this process had none but main processes just before and just after the look.
        var sampled = false
        for _ in 0..<250 where !sampled {
            let counts = scheduler.bridge.sync { driver -> (looks: Int, gathers: Int, clean: Bool) in
                let supervisor = driver.processSupervisor()
                let clean = Self.strangers().isEmpty
                let before = supervisor.scanCounts
                supervisor.refreshOwnChildren()
                let after = supervisor.scanCounts
                return (
                    after.ownChildrenLooks - before.ownChildrenLooks,
                    after.trackedPIDGathers - before.trackedPIDGathers,
                    clean && Self.strangers().isEmpty
                )
            }
            guard let counts, counts.clean else {
                try await Task.sleep(for: .milliseconds(20))
                continue
            }
            sampled = true
            #expect(counts.looks == 1, "looks at this process's children")
            #expect(counts.gathers == 0, "reads of every app's tracked processes")
        }
        if !sampled {
            // Run alone (`--filter OwnChildrenLookTests`) the process has no other children and the look is checked.
            withKnownIssue("other suites' children were there at every sample; nothing was checked") {
                Issue.record("no look among main processes alone in 5 s")
            }
        }
        await scheduler.shutdown()
    }

    @Test("a child that is no app's main process is still checked against every app's tracked processes")
    func strangerIsCheckedAgainstEveryApp() async throws {
        let (scheduler, _) = try LaunchedApps.launched(2, .signal)
        let stranger = try ChildProgram.spawn("/bin/sleep", ["1000"])
        defer {
            kill(stranger, SIGKILL)
            _ = waitpid(stranger, nil, 0)
        }
        let gathers = scheduler.bridge.sync { driver -> Int in
            let supervisor = driver.processSupervisor()
            let before = supervisor.scanCounts.trackedPIDGathers
            supervisor.refreshOwnChildren()
            return supervisor.scanCounts.trackedPIDGathers - before
        }
        #expect(gathers == 1, "reads of every app's tracked processes for one stranger")
        await scheduler.shutdown()
    }
}
