/// SplitMix64: a tiny deterministic generator, so that property tests give the same trace for the same
/// seed on every machine (the standard library's generator is not seedable). A value type with no shared state.
///
/// For this package's tests and benchmarks, not for embedders: visible outside the package only to
/// `@_spi(Benchmarks) import RunwayTestKit` (the Benchmarks package).
@_spi(Benchmarks)
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        self.state = seed
    }

    public mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound`.
    public mutating func next(below bound: UInt64) -> UInt64 {
        precondition(bound > 0, "bound must be positive")
        return self.next() % bound
    }
}
