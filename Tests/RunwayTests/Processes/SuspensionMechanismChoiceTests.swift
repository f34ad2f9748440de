@_spi(Processes) import RunwayCore
import Testing

@_spi(Processes) @testable import Runway
@testable import RunwayLoop
@_spi(Processes) @testable import RunwayProcesses

@Suite("P1: SuspensionMechanism is resolved by one pure rule (SuspensionMechanismChoice.resolve)")
struct SuspensionMechanismChoiceTests {
    static let cgroup = "/sys/fs/cgroup/runway.1/com.example.app"
    static let unavailable = CgroupUnavailable(reason: "the cgroup2 mount at /sys/fs/cgroup is read-only")

    @Test("P1: signal is signal, and the freezer is never probed (no cgroup is touched)")
    func P1_signalNeverProbesTheFreezer() {
        var probes = 0
        let result = SuspensionMechanismChoice.resolve(requested: .signal) {
            probes += 1
            return .success(Self.cgroup)
        }
        #expect(result == .success(SuspensionMechanismChoice(mechanism: .signal)))
        #expect(probes == 0)
    }

    @Test("P1: auto uses the freezer where it is usable, probing once")
    func P1_autoUsesTheFreezer() {
        var probes = 0
        let result = SuspensionMechanismChoice.resolve(requested: .auto) {
            probes += 1
            return .success(Self.cgroup)
        }
        #expect(result == .success(SuspensionMechanismChoice(mechanism: .freezer)))
        #expect(probes == 1)
    }

    @Test("P1: auto falls back to signals, keeping why the freezer is unusable")
    func P1_autoFallsBackWithTheReason() {
        let result = SuspensionMechanismChoice.resolve(requested: .auto) { .failure(Self.unavailable) }
        let expected = SuspensionMechanismChoice(mechanism: .signal, fallbackReason: Self.unavailable.reason)
        #expect(result == .success(expected))
    }

    @Test("P1: freezer uses the freezer, or fails with the reason when it is unusable (no fallback)")
    func P1_freezerIsRequired() {
        var probes = 0
        let usable = SuspensionMechanismChoice.resolve(requested: .freezer) {
            probes += 1
            return .success(Self.cgroup)
        }
        #expect(usable == .success(SuspensionMechanismChoice(mechanism: .freezer)))
        #expect(probes == 1)
        let unusable = SuspensionMechanismChoice.resolve(requested: .freezer) { .failure(Self.unavailable) }
        #expect(unusable == .failure(Self.unavailable))
    }

    @Test("P1: ProcessOptions is the one source of the setting, and its default is auto")
    func P1_processOptionsDefaultIsAuto() {
        #expect(ProcessOptions().suspensionMechanism == .auto)
        #expect(ProcessOptions(suspensionMechanism: .signal).suspensionMechanism == .signal)
    }
}
