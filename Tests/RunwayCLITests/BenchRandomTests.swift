import RunwayCore
@_spi(Benchmarks) import RunwayTestKit
import Testing

@testable import RunwayBench

/// The bench's seeded generator is SplitMix64, the sequence of the test kit's `SeededRandom`: a `--seed` names the
/// same plan (the same finishers, end points and expected counts) on every machine and in every version, without
/// the shipped `runway` linking the test kit.
@Suite struct BenchRandomTests {
    @Test(arguments: [0, 1, 0x5EED_0001, UInt64.max])
    func aSeedGivesTheTestKitSequence(seed: UInt64) {
        var bench = BenchRandom(seed: seed)
        var kit = SeededRandom(seed: seed)
        let benchValues = (0..<1_000).map { _ in bench.next() }
        let kitValues = (0..<1_000).map { _ in kit.next() }
        #expect(benchValues == kitValues)
    }

    @Test func unitIntervalValuesAreInZeroToOne() {
        var random = BenchRandom(seed: 7)
        let values = (0..<10_000).map { _ in random.unitInterval() }
        #expect(values.allSatisfy { $0 >= 0 && $0 < 1 })
    }

    /// The first app of seed 1 with half the apps finishing: the plan a `runway bench --seed 1` report records.
    @Test func theSamePlanForTheSameSeed() {
        let configuration = BenchConfiguration(
            apps: 1_000,
            tasksPerApp: 10,
            budget: TimeSpan(nanoseconds: 2_000_000_000),
            warningLead: TimeSpan(nanoseconds: 500_000_000),
            endFraction: 0.5,
            duration: TimeSpan(nanoseconds: 1_000_000_000),
            seed: 1
        )
        let first = BenchPlan(configuration)
        let second = BenchPlan(configuration)
        #expect(first.endPoints == second.endPoints)
        var kit = SeededRandom(seed: 1)
        let expected = (0..<1_000).map { _ -> Double? in
            let finishes = Double(kit.next() >> 11) / Double(UInt64(1) << 53) < 0.5
            let point = 0.25 + 0.5 * Double(kit.next() >> 11) / Double(UInt64(1) << 53)
            return finishes ? point : nil
        }
        #expect(first.endPoints == expected)
    }
}
