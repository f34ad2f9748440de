/// SplitMix64, the generator of a bench plan: the same seed gives the same apps, tasks and expected counts on every
/// machine (the standard library's generator is not seedable). It yields the sequence of RunwayTestKit's
/// `SeededRandom`, so that a seed names the same plan as the tests' generator would, without linking the test kit
/// into `runway`. Threading: a value with no shared state.
package struct BenchRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        self.state = seed
    }

    package mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in [0, 1) with 53 random bits.
    package mutating func unitInterval() -> Double {
        Double(self.next() >> 11) / Double(UInt64(1) << 53)
    }
}
